/*
 * rec_each.h: RN_EACH(M, S, a, b, ...) is M(a) S() M(b) ... for up to 32
 * arguments: how rec_api_nn_ops.c (and the test probe
 * tests/c/record_ops_probe.c) turn each (KIND, name) of an operator's line
 * in rec_ops_table.h into a parameter, a recording or an argument.
 */
#ifndef ACLRECORD_EACH_H
#define ACLRECORD_EACH_H

#define RN_CAT_(a, b) a##b
#define RN_CAT(a, b) RN_CAT_(a, b)
#define RN_COUNT_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, \
                  _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, _31, _32, N, ...)                      \
    N
#define RN_COUNT(...)                                                                                            \
    RN_COUNT_(__VA_ARGS__, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, \
              10, 9, 8, 7, 6, 5, 4, 3, 2, 1)
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
#define RN_EACH_17(M, S, a, ...) M(a) S() RN_EACH_16(M, S, __VA_ARGS__)
#define RN_EACH_18(M, S, a, ...) M(a) S() RN_EACH_17(M, S, __VA_ARGS__)
#define RN_EACH_19(M, S, a, ...) M(a) S() RN_EACH_18(M, S, __VA_ARGS__)
#define RN_EACH_20(M, S, a, ...) M(a) S() RN_EACH_19(M, S, __VA_ARGS__)
#define RN_EACH_21(M, S, a, ...) M(a) S() RN_EACH_20(M, S, __VA_ARGS__)
#define RN_EACH_22(M, S, a, ...) M(a) S() RN_EACH_21(M, S, __VA_ARGS__)
#define RN_EACH_23(M, S, a, ...) M(a) S() RN_EACH_22(M, S, __VA_ARGS__)
#define RN_EACH_24(M, S, a, ...) M(a) S() RN_EACH_23(M, S, __VA_ARGS__)
#define RN_EACH_25(M, S, a, ...) M(a) S() RN_EACH_24(M, S, __VA_ARGS__)
#define RN_EACH_26(M, S, a, ...) M(a) S() RN_EACH_25(M, S, __VA_ARGS__)
#define RN_EACH_27(M, S, a, ...) M(a) S() RN_EACH_26(M, S, __VA_ARGS__)
#define RN_EACH_28(M, S, a, ...) M(a) S() RN_EACH_27(M, S, __VA_ARGS__)
#define RN_EACH_29(M, S, a, ...) M(a) S() RN_EACH_28(M, S, __VA_ARGS__)
#define RN_EACH_30(M, S, a, ...) M(a) S() RN_EACH_29(M, S, __VA_ARGS__)
#define RN_EACH_31(M, S, a, ...) M(a) S() RN_EACH_30(M, S, __VA_ARGS__)
#define RN_EACH_32(M, S, a, ...) M(a) S() RN_EACH_31(M, S, __VA_ARGS__)

#define RN_COMMA() ,
#define RN_SEMI() ;

#endif /* ACLRECORD_EACH_H */
