! mpi_fortran.f90: the Fortran bindings (use mpi): a ring of ITER
! mpi_send/mpi_recv pairs, one mpi_allreduce and one mpi_barrier per rank.
! Rank 0 prints "fortran ok N" when the results are right.
program mpi_fortran
  use mpi
  implicit none
  integer, parameter :: iter = 5
  integer :: ierr, rank, nranks, nxt, prv, i, token, total
  integer :: status(MPI_STATUS_SIZE)

  call mpi_init(ierr)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call mpi_comm_size(MPI_COMM_WORLD, nranks, ierr)
  nxt = mod(rank + 1, nranks)
  prv = mod(rank + nranks - 1, nranks)
  token = 0
  do i = 1, iter
    if (rank == 0) then
      call mpi_send(token, 1, MPI_INTEGER, nxt, 1, MPI_COMM_WORLD, ierr)
      call mpi_recv(token, 1, MPI_INTEGER, prv, 1, MPI_COMM_WORLD, status, ierr)
    else
      call mpi_recv(token, 1, MPI_INTEGER, prv, 1, MPI_COMM_WORLD, status, ierr)
      token = token + rank
      call mpi_send(token, 1, MPI_INTEGER, nxt, 1, MPI_COMM_WORLD, ierr)
    end if
  end do
  call mpi_allreduce(rank + 1, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call mpi_barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (token /= iter * nranks * (nranks - 1) / 2 .or. total /= nranks * (nranks + 1) / 2) then
      print '(a)', 'fortran wrong'
      call mpi_abort(MPI_COMM_WORLD, 2, ierr)
    end if
  end if
  call mpi_finalize(ierr)
  if (rank == 0) print '(a,i0)', 'fortran ok ', nranks
end program mpi_fortran
