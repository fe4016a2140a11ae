/*
 * hccl_record.c: libhccl_record.so, the HCCL face of the recording shim.
 *
 * The HCCL wrappers live in libascendcl_record.so (csrc/record/
 * rec_api_hccl_*.c), beside the runtime's, so both write one trace with one
 * set of symbolic names (a collective's buffers and stream are those of the
 * runtime calls). A program that preloads libascendcl_record.so gets them
 * already. Loaders that open HCCL by path instead (ascendcl-sys and
 * torch_npu open libhccl.so beside the runtime library, then dlsym on that
 * handle) need a file named libhccl.so there: this library, copied or
 * linked under that name beside libascendcl_record.so. It defines nothing
 * itself; it needs libascendcl_record.so (found through its rpath $ORIGIN),
 * and a dlsym on its handle searches that dependency, so every Hccl symbol
 * resolves to the shim's wrapper, which forwards to the real HCCL library
 * (rec_hccl_target.c).
 */

/* ISO C wants a translation unit to declare something; nothing is exported. */
typedef int hccl_record_unit;
