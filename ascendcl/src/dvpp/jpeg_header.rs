//! A JPEG's frame header read on the host: its size and coding, before any
//! device work is queued.
//!
//! The NPU decoder writes into an output whose height and width the caller
//! gives (`acldvppDecodeJpeg` takes `out` already shaped), so a loader reads
//! them from the file first, as torchvision_npu does. Reading the header
//! also refuses, with the reason, what the decoder cannot take, before any
//! FFI call.

use crate::error::{Error, Result};

/// What a JPEG's frame header (its SOF segment) says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JpegHeader {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Colour components: 1 (grey) or 3 (YCbCr).
    pub components: u8,
}

/// Start-of-frame markers the decoder takes: baseline and extended
/// sequential Huffman (ITU T.81, Table B.1).
const SOF_SEQUENTIAL: [u8; 2] = [0xC0, 0xC1];

fn refused(why: impl Into<String>) -> Error {
    Error::invalid(format!("not a JPEG the DVPP decoder takes: {}", why.into()))
}

/// The coding a start-of-frame marker names, for errors.
fn coding(marker: u8) -> &'static str {
    match marker {
        0xC2 => "progressive (SOF2)",
        0xC3 => "lossless (SOF3)",
        0xC5..=0xC7 => "hierarchical (SOF5-7)",
        0xC9..=0xCB | 0xCD..=0xCF => "arithmetic-coded (SOF9-15)",
        _ => "an unknown coding",
    }
}

impl JpegHeader {
    /// Reads the frame header of `bytes` (a whole JPEG file). Errors say
    /// why the decoder would refuse the file: not a JPEG, truncated before
    /// the frame header, a coding other than sequential Huffman (progressive,
    /// lossless, hierarchical, arithmetic), a precision other than 8 bits, a
    /// component count other than 1 or 3, a zero size.
    ///
    /// ```
    /// use ascendcl::dvpp::JpegHeader;
    /// assert!(JpegHeader::parse(b"GIF89a").is_err());
    /// ```
    pub fn parse(bytes: &[u8]) -> Result<JpegHeader> {
        if bytes.len() < 4 || bytes[0] != 0xFF || bytes[1] != 0xD8 {
            return Err(refused("it does not start with the SOI marker (FF D8)"));
        }
        let mut at = 2;
        loop {
            // Markers may be preceded by fill bytes 0xFF (T.81 B.1.1.2).
            while at < bytes.len() && bytes[at] == 0xFF {
                at += 1;
            }
            let Some(&marker) = bytes.get(at) else {
                return Err(refused("it ends before its frame header (SOF)"));
            };
            at += 1;
            if at < 3 || bytes[at - 2] != 0xFF {
                return Err(refused(format!(
                    "byte {} is not a marker where one is due",
                    at - 1
                )));
            }
            match marker {
                0xD8 | 0x01 | 0xD0..=0xD7 => continue, // no length
                0xD9 => return Err(refused("it ends (EOI) before its frame header")),
                _ => {}
            }
            let Some(len) = bytes
                .get(at..at + 2)
                .map(|b| usize::from(u16::from_be_bytes([b[0], b[1]])))
            else {
                return Err(refused("it ends inside a segment length"));
            };
            if len < 2 || at + len > bytes.len() {
                return Err(refused(format!(
                    "the segment of marker FF {marker:02X} at byte {} is truncated",
                    at - 2
                )));
            }
            let body = &bytes[at + 2..at + len];
            let is_sof = (0xC0..=0xCF).contains(&marker) && ![0xC4, 0xC8, 0xCC].contains(&marker);
            if is_sof {
                if !SOF_SEQUENTIAL.contains(&marker) {
                    return Err(refused(format!("it is {}", coding(marker))));
                }
                return Self::from_sof(body);
            }
            if marker == 0xDA {
                return Err(refused("a scan (SOS) comes before the frame header"));
            }
            at += len;
        }
    }

    fn from_sof(body: &[u8]) -> Result<JpegHeader> {
        if body.len() < 6 {
            return Err(refused("its frame header is truncated"));
        }
        if body[0] != 8 {
            return Err(refused(format!(
                "its samples have {} bits (the decoder takes 8)",
                body[0]
            )));
        }
        let height = u32::from(u16::from_be_bytes([body[1], body[2]]));
        let width = u32::from(u16::from_be_bytes([body[3], body[4]]));
        let components = body[5];
        if width == 0 || height == 0 {
            return Err(refused(format!("its size is {width}x{height}")));
        }
        if components != 1 && components != 3 {
            return Err(refused(format!(
                "it has {components} colour components (the decoder takes 1 or 3)"
            )));
        }
        if body.len() < 6 + 3 * usize::from(components) {
            return Err(refused("its frame header is truncated"));
        }
        Ok(JpegHeader {
            width,
            height,
            components,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sof(marker: u8, precision: u8, h: u16, w: u16, comps: u8) -> Vec<u8> {
        let mut v = vec![0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x4A, 0x46, 0xFF, marker];
        let len = 8 + 3 * u16::from(comps);
        v.extend(len.to_be_bytes());
        v.push(precision);
        v.extend(h.to_be_bytes());
        v.extend(w.to_be_bytes());
        v.push(comps);
        for i in 0..comps {
            v.extend([i + 1, 0x11, 0]);
        }
        v
    }

    #[test]
    fn a_baseline_header_gives_its_size_and_components() {
        let h = JpegHeader::parse(&sof(0xC0, 8, 23, 37, 3)).unwrap();
        assert_eq!((h.width, h.height, h.components), (37, 23, 3));
    }

    #[test]
    fn progressive_arithmetic_and_twelve_bit_files_are_refused_with_the_reason() {
        let e = JpegHeader::parse(&sof(0xC2, 8, 8, 8, 3)).unwrap_err();
        assert!(e.to_string().contains("progressive"), "{e}");
        let e = JpegHeader::parse(&sof(0xC9, 8, 8, 8, 3)).unwrap_err();
        assert!(e.to_string().contains("arithmetic"), "{e}");
        let e = JpegHeader::parse(&sof(0xC1, 12, 8, 8, 3)).unwrap_err();
        assert!(e.to_string().contains("12 bits"), "{e}");
        let e = JpegHeader::parse(&sof(0xC0, 8, 8, 8, 4)).unwrap_err();
        assert!(e.to_string().contains("4 colour components"), "{e}");
    }

    #[test]
    fn every_truncation_of_a_header_is_an_error_not_a_panic() {
        let full = sof(0xC0, 8, 16, 16, 3);
        for cut in 0..full.len() {
            assert!(JpegHeader::parse(&full[..cut]).is_err(), "cut at {cut}");
        }
    }
}
