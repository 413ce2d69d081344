/* A tiny MPI-IO checkpoint writer: every rank writes --pieces pieces of --piece-size bytes,
 * interleaved with the other ranks (piece i of rank r at offset (i * nranks + r) * piece_size),
 * with one collective MPI_File_write_all, then prints the slowest rank's bandwidth:
 *     bandwidth: 123.45 MiB/s
 * Usage: mpiexec -n 4 ./checkpoint OUTPUT_FILE [piece_size_bytes] [pieces]
 * Hints reach it only from outside (ROMIO_HINTS file or MPICH_MPIIO_HINTS): it passes MPI_INFO_NULL. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, nranks;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc < 2) {
        if (rank == 0) fprintf(stderr, "usage: %s OUTPUT_FILE [piece_size] [pieces]\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long piece = argc > 2 ? atol(argv[2]) : 16384;
    int pieces = argc > 3 ? atoi(argv[3]) : 1024;
    if (piece <= 0 || pieces <= 0) {
        if (rank == 0) fprintf(stderr, "piece size and pieces must be positive\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *buf = malloc((size_t)piece * pieces);
    if (buf == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
    memset(buf, 'a' + rank % 26, (size_t)piece * pieces);

    /* Interleaved pieces: a vector type with the classic (non-large-count) call. */
    MPI_Datatype filetype;
    MPI_Type_vector(pieces, (int)piece, (int)(piece * nranks), MPI_BYTE, &filetype);
    MPI_Type_commit(&filetype);

    MPI_File fh;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    int err = MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    if (err != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(err, msg, &len);
        if (rank == 0) fprintf(stderr, "cannot open %s: %s\n", argv[1], msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_File_set_view(fh, (MPI_Offset)rank * piece, MPI_BYTE, filetype, "native", MPI_INFO_NULL);
    MPI_File_write_all(fh, buf, (int)(piece * pieces), MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
    MPI_File_close(&fh);
    double mine = MPI_Wtime() - t0, slowest;
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double mib = (double)piece * pieces * nranks / (1024.0 * 1024.0);
        printf("wrote %.1f MiB in %.3f s\n", mib, slowest);
        printf("bandwidth: %.2f MiB/s\n", mib / slowest);
    }
    MPI_Type_free(&filetype);
    free(buf);
    MPI_Finalize();
    return 0;
}
