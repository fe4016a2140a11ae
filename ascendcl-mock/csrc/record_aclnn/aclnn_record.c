/*
 * aclnn_record.c: libnnopbase_record.so and libopapi_record.so, the aclnn
 * faces of the recording shim.
 *
 * The aclnn wrappers live in libascendcl_record.so (csrc/record/
 * rec_api_nn_*.c), beside the runtime's, so one trace holds both with one
 * set of symbolic names (a tensor's data and an operator's workspace are
 * addresses of the runtime's allocations). A program that preloads
 * libascendcl_record.so gets them already. Loaders that open the operator
 * libraries by path (ascendcl-sys opens libnnopbase.so and libopapi.so from
 * ASCENDCL_ACLNN_DIR, or beside the runtime library, then dlsym on those
 * handles) need files of those names: these libraries, copied or linked
 * under them beside libascendcl_record.so. They define nothing; they need
 * libascendcl_record.so (found through the rpath $ORIGIN), and a dlsym on
 * their handles searches that dependency, so every aclnn symbol resolves to
 * the shim's wrapper, which forwards to the real library
 * (csrc/record/rec_nn_target.c).
 */

/* ISO C wants a translation unit to declare something; nothing is exported. */
typedef int aclnn_record_unit;
