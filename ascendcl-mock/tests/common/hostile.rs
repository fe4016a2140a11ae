//! Hostile text for the fuzz tests: fixed nasty cases and a seeded,
//! deterministic generator (no dependency, the same cases on every run).

/// A small xorshift generator: deterministic, good enough to pick bytes.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Byte strings without NUL (they travel as C strings): quotes,
/// backslashes, every control character, cut and invalid UTF-8, JSON
/// syntax, and texts far longer than any old fixed buffer.
pub fn fixed_cases() -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = vec![
        b"\"".to_vec(),
        b"\\".to_vec(),
        b"\\\"".to_vec(),
        b"\"}".to_vec(),
        b"\"msg\":}".to_vec(),
        b"{\"a\":[1,2,{\"b\":null}]}".to_vec(),
        (1u8..0x20).collect(),
        vec![0x7f, b'\r', b'\n', b'\t', 0x08, 0x0c],
        vec![0xff, 0xfe, 0xc0, 0x80],
        vec![0xe2, 0x82],                       // a cut 3-byte sequence
        vec![0xed, 0xa0, 0x80],                 // an encoded surrogate
        vec![0xf4, 0x90, 0x80, 0x80],           // beyond U+10FFFF
        vec![0xc1, 0xbf],                       // overlong
        "défaut ⚠ 设备 🙂".as_bytes().to_vec(), // valid multibyte text
        b"\\u0000\\ud800".to_vec(),
        b"%s%n%x%p".to_vec(),
    ];
    for len in [511, 512, 513, 1023, 1024, 1100, 4095, 4096, 9000, 70_000] {
        v.push(b"\"\\".iter().copied().cycle().take(len).collect());
        v.push("é".repeat(len / 2).into_bytes());
    }
    v
}

/// `n` random byte strings (no NUL), lengths up to `max_len`.
pub fn random_cases(rng: &mut Rng, n: usize, max_len: usize) -> Vec<Vec<u8>> {
    const PIECES: &[&[u8]] = &[
        b"\"",
        b"\\",
        b"\\u",
        b"{",
        b"}",
        b"[",
        b"]",
        b":",
        b",",
        b"\n",
        b"\x01",
        b"\x1f",
        b"\xff",
        b"\xc3",
        b"\xa9",
        b"\xe2\x82\xac",
        b"\xf0\x9f\x99\x82",
        b"null",
        b"msg",
        b" ",
    ];
    (0..n)
        .map(|_| {
            let len = rng.below(max_len + 1);
            let mut s = Vec::with_capacity(len);
            while s.len() < len {
                if rng.below(3) == 0 {
                    s.extend_from_slice(PIECES[rng.below(PIECES.len())]);
                } else {
                    s.push(1 + rng.below(255) as u8);
                }
            }
            s
        })
        .collect()
}

/// The text as the JSON writers keep it, compared without U+FFFD (an invalid
/// byte becomes one U+FFFD per byte in the writers, per maximal run here).
pub fn without_replacements(s: &str) -> String {
    s.chars().filter(|&c| c != '\u{fffd}').collect()
}

/// Parses every line of `text` with serde_json (strict: UTF-8, escapes,
/// no control characters); panics naming the first line that fails.
pub fn assert_every_line_is_json(text: &[u8], what: &str) -> Vec<serde_json::Value> {
    text.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .enumerate()
        .map(|(i, line)| {
            serde_json::from_slice::<serde_json::Value>(line).unwrap_or_else(|e| {
                panic!(
                    "{what}: line {} is not JSON ({e}): {}",
                    i + 1,
                    String::from_utf8_lossy(&line[..line.len().min(400)])
                )
            })
        })
        .collect()
}
