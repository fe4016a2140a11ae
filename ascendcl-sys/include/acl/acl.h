/*
 * ascendcl-sys: umbrella header of our AscendCL declarations.
 *
 * Include it as <acl/acl.h>, the same path as CANN's: the include directory is
 * the parent of `acl/`, so sources built against this header build unchanged
 * against a CANN install.
 */
#ifndef ASCENDCL_SYS_ACL_H
#define ASCENDCL_SYS_ACL_H

#include "acl_rt.h"

#endif /* ASCENDCL_SYS_ACL_H */
