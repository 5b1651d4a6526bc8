/* compare --mpi and train --mpi: the ranks of an mpirun job, each on its own machine, with
 * rank 0 printing one report (docs/DESIGN.md's conventions; docs/COMMANDS.md, "Across machines").
 *
 * Every rank goes through the same collective calls in the same order whatever happens to
 * it, so that a rank that fails sends its failure instead of hanging the others. Ranks
 * other than 0 write nothing themselves: their standard output goes to /dev/null and their
 * standard error into a temporary file, which rank 0 relays (mpi_captured).
 *
 * Built with -DCLPARITY_MPI=ON (tools/setup.sh does); without it, mpi_begin refuses with
 * status 2 and says how to build it. */
#ifndef CLPARITY_TOOLS_MPI_H
#define CLPARITY_TOOLS_MPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "clparity/model.h"

/* A byte buffer that the ranks exchange: written with wire_put_*, read back in the same
 * order with wire_get_*. A read past the end sets bad and returns zeros / "". */
struct wire {
    unsigned char *p;
    size_t len, cap, pos;
    bool bad; /* out of memory when writing, truncated when reading */
};
void wire_put_u64(struct wire *w, uint64_t v);
void wire_put_f64(struct wire *w, double v);
void wire_put_str(struct wire *w, const char *s);
void wire_put_bytes(struct wire *w, const void *p, size_t n);
uint64_t wire_get_u64(struct wire *w);
double wire_get_f64(struct wire *w);
const char *wire_get_str(struct wire *w); /* points into the buffer */
const void *wire_get_bytes(struct wire *w, size_t *n);
void wire_free(struct wire *w);
/* A model: its layers, weights and provenance; wire_get_model checks that every layer lies
 * inside the weights. */
void wire_put_model(struct wire *w, const cp_model *m);
int wire_get_model(struct wire *w, cp_model *m);

/* Whether argv asks for --mpi (before any "--"), so that MPI starts before the parsing. */
bool mpi_requested(int argc, char **argv);

/* MPI_Init, the capture of other ranks' output, and the version check: ranks that run
 * different clparity versions (or builds) are refused with status 2, rank 0 naming both.
 * Returns CP_OK or the status every rank returns. */
int mpi_begin(const char *cmd);
/* The agreed exit status: rank 0's st, on every rank; then MPI_Finalize. */
int mpi_end(int st);

int mpi_rank(void);
int mpi_size(void);
/* How rank r is named in the report: its host name, with "#r" where ranks share a host name
 * (rank 0 knows every rank's name; the others know only their own). */
void mpi_rank_label(int r, char *buf, size_t len);
/* Rank r's clparity version and OpenBLAS core, as rank 0 learnt them in mpi_begin. */
const char *mpi_rank_version(int r);
/* Number of distinct host names among the ranks (rank 0). */
int mpi_hosts(void);

/* Rank 0's buffer to every rank: the others' w is replaced by a copy. */
int mpi_bcast(struct wire *w);
/* Every rank's buffer to rank 0: all[r] for each rank (rank 0's own included); NULL on the
 * other ranks. Free with mpi_wires_free. */
int mpi_gather(const struct wire *mine, struct wire **all);
void mpi_wires_free(struct wire *all);
/* What this rank wrote to standard error since mpi_begin ("" on rank 0, whose standard error
 * is its own). */
const char *mpi_captured(void);
/* The first line of this rank's error: cp_err_msg() on rank 0, else the first line it wrote to
 * standard error. */
void mpi_first_error(char *buf, size_t len);
/* The ranks' table of the report: each rank's host, version and OpenBLAS core, or
 * "failed: <its first stderr line>", then how the ranks were timed. */
struct mpi_rank_row {
    int st;
    const char *msg, *core;
    size_t n; /* results */
};
void mpi_print_ranks(FILE *f, const struct mpi_rank_row *v, int n);
/* Prints each line of text to stderr behind "[label] ". */
void mpi_relay(const char *label, const char *text);

#endif
