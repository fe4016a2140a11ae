//! Journal entries: one JSON object per ACL call.
//!
//! Trace format version 1 (see [`crate::trace`] and `docs/trace-format.md`),
//! one line per call, keys in this order:
//!
//! ```json
//! {"seq":12,"thread":1,"fn":"aclrtMalloc","args":{"size":4096,"policy":0},
//!  "out":{"devPtr":"m3+0x0"},"ret":0,"t_ns":183200,"dur_ns":900}
//! ```
//!
//! * `seq`: 1-based call number since the last reset; `thread`: small id of
//!   the calling thread (1 = first thread that called).
//! * handles are symbolic ids: `c2` context, `s4` stream (`s0` = the default
//!   stream of the current context), `e1` event, `p3` physical handle; device
//!   pointers are `m<alloc>+0x<offset>` (aclrtMalloc) or `v<range>+0x<offset>`
//!   (reserved range), pinned host pointers `h<alloc>+0x<offset>`, any other host
//!   pointer `"host"`, null `null`.
//! * `ret` is the returned code (functions returning a pointer give 0, or the
//!   code of the failure that made them return null); a failing call also has
//!   `msg`, its error text, right after `ret`.
//! * `t_ns` is the start time since the mock was loaded, `dur_ns` the duration.
//! * a call in which the mock's happens-before model (unordered accesses,
//!   host access to pinned memory under queued copies) or `aclrtFreePhysical`
//!   of a mapped handle detected misuse has `"misuse":"<KIND>"` among its
//!   out-values ([`JournalEntry::misuse`]); the misuse log has the details.

/// One journal line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalEntry {
    /// The JSON text of the entry.
    pub line: String,
}

impl JournalEntry {
    pub(crate) fn new(line: &str) -> JournalEntry {
        JournalEntry {
            line: line.to_string(),
        }
    }

    /// The raw JSON text of a top-level field, e.g. `"12"` or `"\"aclInit\""`.
    pub fn raw_field(&self, key: &str) -> Option<&str> {
        let pattern = format!("\"{key}\":");
        let start = self.line.find(&pattern)? + pattern.len();
        let rest = &self.line[start..];
        let mut depth = 0i32;
        let mut in_string = false;
        let mut escaped = false;
        for (i, ch) in rest.char_indices() {
            if in_string {
                match (escaped, ch) {
                    (true, _) => escaped = false,
                    (false, '\\') => escaped = true,
                    (false, '"') => in_string = false,
                    _ => {}
                }
                continue;
            }
            match ch {
                '"' => in_string = true,
                '{' | '[' => depth += 1,
                '}' | ']' if depth == 0 => return Some(&rest[..i]),
                '}' | ']' => depth -= 1,
                ',' if depth == 0 => return Some(&rest[..i]),
                _ => {}
            }
        }
        Some(rest)
    }

    /// The sequence number.
    pub fn seq(&self) -> u64 {
        self.raw_field("seq")
            .and_then(|s| s.parse().ok())
            .unwrap_or(0)
    }

    /// The C function name.
    pub fn function(&self) -> &str {
        self.raw_field("fn")
            .map(|s| s.trim_matches('"'))
            .unwrap_or("")
    }

    /// The returned code.
    pub fn ret(&self) -> i32 {
        self.raw_field("ret")
            .and_then(|s| s.parse().ok())
            .unwrap_or(i32::MIN)
    }

    /// The entry as a parsed trace record.
    pub fn record(&self) -> Option<crate::trace::Record> {
        crate::trace::Record::parse(&self.line).ok()
    }

    /// The error text of a failing call (`msg`), if it has one.
    pub fn message(&self) -> Option<String> {
        self.record()?.msg
    }

    /// The misuse the call was flagged with in its out-values, if any.
    pub fn misuse(&self) -> Option<crate::Misuse> {
        let record = self.record()?;
        crate::Misuse::from_name(record.out.get("misuse")?.as_str()?)
    }

    /// The calling thread's id.
    pub fn thread(&self) -> u64 {
        self.raw_field("thread")
            .and_then(|s| s.parse().ok())
            .unwrap_or(0)
    }
}
