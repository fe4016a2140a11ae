/*
 * jpeg_decode.h: the JPEG decoder behind the mock's acldvppDecodeJpeg.
 *
 * A self-contained baseline / extended-sequential Huffman JPEG decoder
 * (ITU-T T.81 + JFIF 1.02), written for the mock from the standard; it uses
 * nothing but the C library and nothing else of the mock. Its output is meant
 * to match what Pillow (libjpeg-turbo, default settings: islow IDCT, "fancy"
 * triangle-filter chroma upsampling) gives, within a level or two (the IDCT
 * is our own float one, see jpeg_idct.c). The goldens that check this are
 * examples/reference/dvpp/ (scripts/goldens/make_dvpp_goldens.py).
 *
 * Every symbol of these files is static or named mk_jpeg_* and hidden, so
 * that linking them into libacl_dvpp_op.so exports nothing of them. (A test
 * build may define MK_JPEG_HIDDEN empty to export the two entry points.)
 *
 * What the real operator refuses, per CANN's documentation (read through the
 * search tool's stored copies; paraphrased):
 *
 * - CANN 8.5, acldvppDecodeJpeg
 *   https://www.hiascend.com/doc_center/source/zh/canncommercial/850/API/aolapi/operatorlist_00065.html
 *   Decodes .jpg/.jpeg data (a contiguous UINT8 ND tensor on the device) into
 *   a GRAY (channels = 1) or RGB (channels = 3) UINT8 image, NCHW or NHWC.
 *   tryRecoverTruncated is reserved, not supported yet, and must be passed as
 *   true. Resolutions from 6x4 up to 32768x32768 are accepted; those in
 *   [32x32, 16384x16384] go to the hardware decoder, all others (and any
 *   image the hardware fails on) are decoded by libjpeg-turbo on the AI CPU.
 *   In hardware the result agrees with OpenCV 3.4.2, whose JPEG codec is
 *   libjpeg-turbo 1.5.3. The page says nothing about progressive or
 *   arithmetic-coded files, sample precision or sampling formats; given the
 *   libjpeg-turbo fallback, the real operator may well decode progressive
 *   files. The mock refuses them anyway (below), as the older JPEGD docs do.
 * - The V1 JPEGD "functions and restrictions" page (acldvppJpegDecodeAsync),
 *   https://www.hiascend.com/document/detail/en/canncommercial/800/apiref/appdevgapi/aclcppdevg_03_0355.html
 *   In the stored copy only its first part: JPEGD applies the EXIF
 *   orientation (rotation / mirroring) while decoding, and can keep the
 *   source sampling (e.g. JPEG(440) -> YUV440SP). Its restriction list was
 *   not in the stored copy, and no CANN 8.5 copy of the page was found.
 *   (acldvppDecodeJpeg's page does not mention orientation; we apply none.)
 * - The older JPEGD page (Atlas 500 DVPP API),
 *   https://support.huaweicloud.com/api-dvpp-atlas500app/atlasdvpp_07_0006.html
 *   Input from 32x32 to 8192x8192; Huffman coding only, YUV colour space,
 *   sampling 4:4:4 / 4:2:2 / 4:2:0 / 4:0:0 (grey); no arithmetic coding, no
 *   progressive JPEG, no JPEG 2000. The hardware takes at most 4 Huffman
 *   tables (2 DC + 2 AC) and 3 quantization tables, 8-bit precision only,
 *   sequential DCT only, a single SOS; a software path takes images with 3
 *   SOS (non-interleaved scans) and images whose MCU data are incomplete.
 * - The mxVision image decoder plugin,
 *   https://www.hiascend.com/document/detail/en/mindsdk/730/Vision/visionug/mxvisionapi_1126.html
 *   Huffman only, sampling 444, 422, 420, 400 or 440; no arithmetic coding,
 *   no progressive JPEG, no JPEG 2000; 32x32 to 8192x8192.
 *
 * So this decoder takes: SOF0 and SOF1, 8-bit, 1 or 3 components, sampling
 * factors 1 or 2 on each axis (4:4:4, 4:2:2, 4:2:0, 4:4:0, grey, and any
 * other combination of 1s and 2s), interleaved and non-interleaved scans
 * (one per component, in any order), DRI/RSTn, 8- and 16-bit quantization
 * tables, Adobe APP14 transform 0 (RGB stored as is). It does not check the
 * operator's resolution range: the caller does.
 *
 * MK_JPEG_UNSUPPORTED: progressive (SOF2, SOF6, SOF10, SOF14), lossless
 * (SOF3 ...), hierarchical (SOF5-7, DHP, EXP), arithmetic coding (SOF9-15,
 * DAC), the JPG marker 0xC8, precision other than 8, 2 or 4 (or more)
 * components, sampling factors 3 or 4, an Adobe transform other than 0 or 1
 * on 3 components, channels other than 1 or 3.
 *
 * MK_JPEG_CORRUPT: no SOI; a segment whose length is wrong or runs past the
 * data; an unknown marker; width or height 0 (a height given later by DNL is
 * not supported); a scan before the frame or naming an unknown component; a
 * scan whose Huffman or quantization tables are not defined (libjpeg-turbo
 * would substitute the standard Huffman tables, as for Motion-JPEG: we do
 * not); a Huffman code not in its table; an AC run past the 64th
 * coefficient; more than 10 blocks in an MCU; a restart marker missing or
 * out of sequence; entropy data ending (end of input, or a marker) before
 * every MCU of every component is decoded, so a truncated file is refused
 * (libjpeg-turbo pads it with grey and warns; Pillow raises). Decided: once
 * every component has all its blocks the decoder stops reading, so a
 * missing EOI, or anything after the last scan, is fine: libjpeg-turbo (and
 * so OpenCV) decodes such a file with a warning, though Pillow raises
 * "image file is truncated" for it. Bytes between a scan's data and the
 * next marker are skipped (as libjpeg does, with a warning).
 *
 * Colour: 1 component is grey. 3 components are YCbCr, unless there is no
 * JFIF APP0 and either an Adobe APP14 says transform 0 or (no Adobe marker)
 * the component ids are 'R','G','B': then RGB as stored. This is the rule
 * libjpeg applies. channels 3 of a grey image replicates it; channels 1 of a
 * YCbCr image is its Y plane (no conversion), of an RGB image
 * 0.299 R + 0.587 G + 0.114 B rounded.
 *
 * Thread safety: no global mutable state; each call works on its own stack
 * and heap memory.
 */
#ifndef MK_JPEG_DECODE_H
#define MK_JPEG_DECODE_H

#include <stddef.h>
#include <stdint.h>

#ifndef MK_JPEG_HIDDEN
#define MK_JPEG_HIDDEN __attribute__((visibility("hidden")))
#endif

typedef enum mk_jpeg_status {
    MK_JPEG_OK = 0,
    MK_JPEG_UNSUPPORTED = 1,
    MK_JPEG_CORRUPT = 2,
    MK_JPEG_NOMEM = 3
} mk_jpeg_status;

/* Colour spaces (mk_jpeg_info.colorspace). */
#define MK_JPEG_CS_GRAY 1u  /* one component */
#define MK_JPEG_CS_YCBCR 2u /* three components, JFIF YCbCr */
#define MK_JPEG_CS_RGB 3u   /* three components stored as RGB */

typedef struct mk_jpeg_info {
    uint32_t width, height;      /* from SOF */
    uint32_t components;         /* 1 or 3 in an accepted image */
    uint32_t h_samp[4], v_samp[4];
    uint32_t restart_interval;   /* in force at the first SOS; 0: none */
    uint32_t precision;          /* 8 */
    int sof;                     /* 0xC0, 0xC1, ... (0 before the SOF) */
    uint32_t colorspace;         /* MK_JPEG_CS_*, set at the first SOS */
    uint32_t scan_components;    /* components of the first scan */
} mk_jpeg_info;

/* Parses markers up to the first SOS (and that SOS's header); fills info
 * (as far as it got, also on failure). Returns OK, or UNSUPPORTED / CORRUPT
 * with a one-line reason in why (NUL-terminated, truncated to why_len; why
 * may be NULL). No allocation beyond the stack (about 13 KiB of it). OK does
 * not promise that the entropy data decode. */
MK_JPEG_HIDDEN mk_jpeg_status mk_jpeg_probe(const uint8_t *data, size_t len,
                                            mk_jpeg_info *info, char *why,
                                            size_t why_len);

/* Decodes into out: height*width*channels bytes, row-major HWC. channels 3:
 * RGB (a grey JPEG is replicated to R=G=B); channels 1: grey (a grey JPEG's
 * samples; a colour JPEG's Y plane, as libjpeg's grayscale output gives).
 * On failure out may have been partly written. */
MK_JPEG_HIDDEN mk_jpeg_status mk_jpeg_decode(const uint8_t *data, size_t len,
                                             uint32_t channels, uint8_t *out,
                                             char *why, size_t why_len);

#endif
