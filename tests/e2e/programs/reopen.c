/* Opens its file the way upstream IOR does with its checks on: once collectively on MPI_COMM_WORLD to write,
 * then three more times on MPI_COMM_SELF (every rank), and prints "bandwidth: X MiB/s" for the write.
 * Usage: mpiexec -n 4 ./reopen OUTPUT_FILE. It passes MPI_INFO_NULL: hints reach it from ROMIO_HINTS only. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) MPI_Abort(MPI_COMM_WORLD, 2);
    const int piece = 1 << 20, pieces = 4;
    char *buf = malloc(piece);
    if (buf == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
    memset(buf, 'a' + rank % 26, piece);
    MPI_File fh;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < pieces; i++)
        MPI_File_write_at_all(fh, ((MPI_Offset)i * size + rank) * piece, buf, piece, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    double mine = MPI_Wtime() - t0, slowest;
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    for (int k = 0; k < 3; k++) {  /* IOR's reopens: every rank alone */
        if (MPI_File_open(MPI_COMM_SELF, argv[1], MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
            MPI_Abort(MPI_COMM_WORLD, 1);
        MPI_File_close(&fh);
    }
    if (rank == 0)
        printf("bandwidth: %.2f MiB/s\n", (double)piece * pieces * size / (1024.0 * 1024.0) / slowest);
    free(buf);
    MPI_Finalize();
    return 0;
}
