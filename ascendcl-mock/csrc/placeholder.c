/* Placeholder until the mock lands. */
int aclmock_placeholder(void) { return 0; }
