/*
 * launch_key.h: what tells the processes of one run apart, shared by the
 * recording shim (which writes it into a trace's header as "launch") and
 * the mock's replay (which picks, among the traces a run of several
 * processes recorded, the one whose "launch" is this process's).
 *
 * The key is the command line after the program name, each argument with
 * the run-specific parts normalized (the parent's pid written %P, the
 * process's own pid %p, a leading temporary directory %T), and the rank
 * variables of the common launchers that are set (RANK, LOCAL_RANK,
 * RANK_ID, SLURM_PROCID, OMPI_COMM_WORLD_RANK, PMI_RANK). It is written as
 * JSON: {"argv":[...],"rank_env":{...}}, the same bytes in both.
 */
#ifndef ASCENDCL_MOCK_LAUNCH_KEY_H
#define ASCENDCL_MOCK_LAUNCH_KEY_H

#include "json_quote.h"

/* Appends this process's key to b. */
void launch_key_json(jbuf *b);

#endif
