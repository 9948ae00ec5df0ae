/* omp_gcc_teams.c: a gcc-built OpenMP program with host teams
 * (GOMP_teams_reg), which libomp forms with fewer teams or threads than
 * libgomp on the same machine: ovnirun keeps libgomp (t341).  Prints the
 * sum over every thread of every team of 1 + its team number. */
#include <omp.h>
#include <stdio.h>

int main(void)
{
	int sum = 0;
#pragma omp teams num_teams(3) reduction(+ : sum)
	{
#pragma omp parallel reduction(+ : sum)
		sum += 1 + omp_get_team_num();
	}
	printf("teams sum %d\n", sum);
	return 0;
}
