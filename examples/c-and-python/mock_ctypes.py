"""A Python program on the installed mock, through ctypes: device count, then
an injected fault (aclmock.h) that the next aclrtMalloc returns.

    ascendcl-mock install --prefix DIR
    LD_LIBRARY_PATH=DIR/lib python3 mock_ctypes.py

pyACL-based programs find the same libascendcl.so through LD_LIBRARY_PATH.
"""
import ctypes

acl = ctypes.CDLL("libascendcl.so")
assert acl.aclInit(None) == 0
count = ctypes.c_uint32(0)
assert acl.aclrtGetDeviceCount(ctypes.byref(count)) == 0
assert acl.aclrtSetDevice(0) == 0

ACL_ERROR_RT_MEMORY_ALLOCATION = 207001
assert acl.aclmockInjectFault(b"aclrtMalloc", 1, ACL_ERROR_RT_MEMORY_ALLOCATION, None) == 0
pointer = ctypes.c_void_p()
code = acl.aclrtMalloc(ctypes.byref(pointer), ctypes.c_size_t(1 << 20), 0)
assert code == ACL_ERROR_RT_MEMORY_ALLOCATION, code

assert acl.aclrtResetDevice(0) == 0
assert acl.aclFinalize() == 0
print(f"mock_ctypes: ok ({count.value} devices, injected fault returned {code})")
