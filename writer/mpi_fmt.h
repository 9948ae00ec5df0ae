/* mpi_fmt.h: the mpi model ('M', 1.0.0) of the trace format: one pair of
 * events per MPI function, enter (lower-case value or '[') and leave
 * (upper-case or ']'), no payload.  Shared by the interposer (hooks/mpi.c,
 * through ev_mpi.h) and the tools that name the functions (stats, export).
 *
 * X(Name, fortran name, C arguments, Fortran arguments, enter, leave):
 * OA_MPI_FUNCS has every function of the model except MPI_Init,
 * MPI_Init_thread and MPI_Finalize, which OA_MPI_ALL adds. */
#ifndef OA_MPI_FMT_H
#define OA_MPI_FMT_H

#define OA_MPI_FUNCS(X)                                                   \
	X(Wait, wait, 2, 3, "MW[", "MW]")                                 \
	X(Waitall, waitall, 3, 4, "MWa", "MWA")                           \
	X(Waitsome, waitsome, 5, 6, "MWs", "MWS")                         \
	X(Waitany, waitany, 4, 5, "MWy", "MWY")                           \
	X(Test, test, 3, 4, "MT[", "MT]")                                 \
	X(Testall, testall, 4, 5, "MTa", "MTA")                           \
	X(Testany, testany, 5, 6, "MTy", "MTY")                           \
	X(Testsome, testsome, 5, 6, "MTs", "MTS")                         \
	X(Send, send, 6, 7, "MS[", "MS]")                                 \
	X(Bsend, bsend, 6, 7, "MSb", "MSB")                               \
	X(Rsend, rsend, 6, 7, "MSr", "MSR")                               \
	X(Ssend, ssend, 6, 7, "MSs", "MSS")                               \
	X(Recv, recv, 7, 8, "MR[", "MR]")                                 \
	X(Sendrecv, sendrecv, 12, 13, "MRs", "MRS")                       \
	X(Sendrecv_replace, sendrecv_replace, 9, 10, "MRo", "MRO")        \
	X(Allgather, allgather, 7, 8, "MAg", "MAG")                       \
	X(Allreduce, allreduce, 6, 7, "MAr", "MAR")                       \
	X(Alltoall, alltoall, 7, 8, "MAa", "MAA")                         \
	X(Barrier, barrier, 1, 2, "MCb", "MCB")                           \
	X(Exscan, exscan, 6, 7, "MCe", "MCE")                             \
	X(Scan, scan, 6, 7, "MCs", "MCS")                                 \
	X(Bcast, bcast, 5, 6, "MDb", "MDB")                               \
	X(Gather, gather, 8, 9, "MDg", "MDG")                             \
	X(Scatter, scatter, 8, 9, "MDs", "MDS")                           \
	X(Reduce, reduce, 7, 8, "ME[", "ME]")                             \
	X(Reduce_scatter, reduce_scatter, 6, 7, "MEs", "MES")             \
	X(Reduce_scatter_block, reduce_scatter_block, 6, 7, "MEb", "MEB") \
	X(Isend, isend, 7, 8, "Ms[", "Ms]")                               \
	X(Ibsend, ibsend, 7, 8, "Msb", "MsB")                             \
	X(Irsend, irsend, 7, 8, "Msr", "MsR")                             \
	X(Issend, issend, 7, 8, "Mss", "MsS")                             \
	X(Irecv, irecv, 7, 8, "Mr[", "Mr]")                               \
	X(Isendrecv, isendrecv, 12, 13, "Mrs", "MrS")                     \
	X(Isendrecv_replace, isendrecv_replace, 9, 10, "Mro", "MrO")      \
	X(Iallgather, iallgather, 8, 9, "Mag", "MaG")                     \
	X(Iallreduce, iallreduce, 7, 8, "Mar", "MaR")                     \
	X(Ialltoall, ialltoall, 8, 9, "Maa", "MaA")                       \
	X(Ibarrier, ibarrier, 2, 3, "Mcb", "McB")                         \
	X(Iexscan, iexscan, 7, 8, "Mce", "McE")                           \
	X(Iscan, iscan, 7, 8, "Mcs", "McS")                               \
	X(Ibcast, ibcast, 6, 7, "Mdb", "MdB")                             \
	X(Igather, igather, 9, 10, "Mdg", "MdG")                          \
	X(Iscatter, iscatter, 9, 10, "Mds", "MdS")                        \
	X(Ireduce, ireduce, 8, 9, "Me[", "Me]")                           \
	X(Ireduce_scatter, ireduce_scatter, 7, 8, "Mes", "MeS")           \
	X(Ireduce_scatter_block, ireduce_scatter_block, 7, 8, "Meb", "MeB")

#define OA_MPI_ALL(X)                                   \
	OA_MPI_FUNCS(X)                                 \
	X(Init, init, 2, 1, "MUi", "MUI")               \
	X(Init_thread, init_thread, 4, 3, "MUt", "MUT") \
	X(Finalize, finalize, 0, 1, "MUf", "MUF")

#endif
