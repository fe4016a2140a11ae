/*
 * rec_each.h: RN_EACH(M, S, a, b, ...) is M(a) S() M(b) ... for up to 16
 * arguments: how rec_api_nn_ops.c (and the test probe
 * tests/c/record_ops_probe.c) turn each (KIND, name) of an operator's line
 * in rec_ops_table.h into a parameter, a recording or an argument.
 */
#ifndef ACLRECORD_EACH_H
#define ACLRECORD_EACH_H

#define RN_CAT_(a, b) a##b
#define RN_CAT(a, b) RN_CAT_(a, b)
#define RN_COUNT_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, N, ...) N
#define RN_COUNT(...) RN_COUNT_(__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)
#define RN_EACH(M, S, ...) RN_CAT(RN_EACH_, RN_COUNT(__VA_ARGS__))(M, S, __VA_ARGS__)
#define RN_EACH_1(M, S, a) M(a)
#define RN_EACH_2(M, S, a, ...) M(a) S() RN_EACH_1(M, S, __VA_ARGS__)
#define RN_EACH_3(M, S, a, ...) M(a) S() RN_EACH_2(M, S, __VA_ARGS__)
#define RN_EACH_4(M, S, a, ...) M(a) S() RN_EACH_3(M, S, __VA_ARGS__)
#define RN_EACH_5(M, S, a, ...) M(a) S() RN_EACH_4(M, S, __VA_ARGS__)
#define RN_EACH_6(M, S, a, ...) M(a) S() RN_EACH_5(M, S, __VA_ARGS__)
#define RN_EACH_7(M, S, a, ...) M(a) S() RN_EACH_6(M, S, __VA_ARGS__)
#define RN_EACH_8(M, S, a, ...) M(a) S() RN_EACH_7(M, S, __VA_ARGS__)
#define RN_EACH_9(M, S, a, ...) M(a) S() RN_EACH_8(M, S, __VA_ARGS__)
#define RN_EACH_10(M, S, a, ...) M(a) S() RN_EACH_9(M, S, __VA_ARGS__)
#define RN_EACH_11(M, S, a, ...) M(a) S() RN_EACH_10(M, S, __VA_ARGS__)
#define RN_EACH_12(M, S, a, ...) M(a) S() RN_EACH_11(M, S, __VA_ARGS__)
#define RN_EACH_13(M, S, a, ...) M(a) S() RN_EACH_12(M, S, __VA_ARGS__)
#define RN_EACH_14(M, S, a, ...) M(a) S() RN_EACH_13(M, S, __VA_ARGS__)
#define RN_EACH_15(M, S, a, ...) M(a) S() RN_EACH_14(M, S, __VA_ARGS__)
#define RN_EACH_16(M, S, a, ...) M(a) S() RN_EACH_15(M, S, __VA_ARGS__)

#define RN_COMMA() ,
#define RN_SEMI() ;

#endif /* ACLRECORD_EACH_H */
