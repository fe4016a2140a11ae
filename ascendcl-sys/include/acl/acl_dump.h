/*
 * ascendcl-sys: the dump API (acl/acl_dump.h), our own declarations.
 *
 * As in CANN 8.5.0 a header of its own that acl.h does not include; the
 * functions are the dump library's (libascend_dump.so), which the runtime
 * library loads with it. Declared: receiving the data dump through a
 * callback instead of files, and recording operator arguments (AI Core
 * args) under a directory. Names, types and values are CANN's.
 */
#ifndef ASCENDCL_SYS_ACL_DUMP_H
#define ASCENDCL_SYS_ACL_DUMP_H

#include <stdint.h>

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACL_DUMP_MAX_FILE_PATH_LENGTH 4096

/* One piece of a dump file, handed to the callback: the file it belongs to,
 * `bufLen` bytes of data at `offset` (-1: appended), whether it is the
 * file's last piece. The data follows the header. */
typedef struct acldumpChunk {
    char fileName[ACL_DUMP_MAX_FILE_PATH_LENGTH];
    uint32_t bufLen;
    uint32_t isLastChunk;
    int64_t offset;
    int32_t flag;
    uint8_t dataBuf[0];
} acldumpChunk;

/* The dump goes to `messageCallback` (chunk, length of chunk and data)
 * instead of files; `flag` must be 0. One callback at a time. */
aclError acldumpRegCallback(int32_t (*const messageCallback)(const acldumpChunk *, int32_t), int32_t flag);
void acldumpUnregCallback();

/* aclopStartDumpArgs/aclopStopDumpArgs dump types (bits). */
#define ACL_OP_DUMP_OP_AICORE_ARGS 0x00000001U

/* Records the arguments of the operators launched from now on under the
 * directory `path` (created if missing), until the stop. */
aclError aclopStartDumpArgs(uint32_t dumpType, const char *path);
aclError aclopStopDumpArgs(uint32_t dumpType);

#ifdef __cplusplus
}
#endif

#endif /* ASCENDCL_SYS_ACL_DUMP_H */
