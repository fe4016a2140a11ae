//! Traces: recorded AscendCL calls, format version 2 (version 1 is read too).
//!
//! A trace is a JSON-lines file. The mock's journal (`ASCENDCL_MOCK_TRACE`),
//! the recording shim (`libascendcl_record.so`, see [`crate::RECORDER_PATH`])
//! and [`Mock::save_trace`](crate::Mock::save_trace) write it; replay
//! ([`Mock::replay`](crate::Mock::replay)) and the trace summary read it. The
//! full specification, with every function's argument and out-value keys, is
//! `docs/trace-format.md`; in short:
//!
//! ```json
//! {"format":"ascendcl-trace","version":2,"producer":"ascendcl-record","target":"/usr/local/Ascend/…/libascendcl.so",…}
//! {"seq":1,"thread":1,"fn":"aclInit","args":{"configPath":null},"out":{},"ret":0,"t_ns":5120,"dur_ns":81000}
//! {"seq":7,"thread":1,"fn":"aclrtMalloc","args":{"size":4096,"policy":0},"out":{"devPtr":"m1+0x0"},"ret":0,"t_ns":90210,"dur_ns":2300}
//! {"seq":9,"thread":1,"fn":"aclrtSetDevice","args":{"deviceId":99},"out":{},"ret":107001,"msg":"EE1001: …","t_ns":…,"dur_ns":…}
//! ```
//!
//! * The header line (first line; a later header starts a new segment, e.g.
//!   after a mock reset) names the format, its version and the producer.
//! * Each call: `seq` (1-based, in order of completion), `thread` (small id,
//!   1 = the first thread that called), `fn`, `args`, `out` (out-values of a
//!   successful call), `ret` (the return code; 0 for functions returning a
//!   pointer unless it was null), `msg` (a failing call's error text, as
//!   `aclGetRecentErrMsg` gave it), `t_ns` (start, since the producer was
//!   loaded) and `dur_ns`.
//! * Handles are symbolic: `c<N>` context, `s<N>` stream (`s0` the default
//!   stream), `e<N>` event, `p<N>` physical memory; addresses are
//!   `m<N>+0x<off>` (an `aclrtMalloc` block), `v<N>+0x<off>` (a reserved
//!   range), `h<N>+0x<off>` (an `aclrtMallocHost` block) or `"host"`. Ids count
//!   from 1 per kind in order of appearance. No data is ever recorded.

use std::fmt;
use std::path::Path;

pub use crate::json::{Value, quote};

/// The `format` of the header line.
pub const FORMAT: &str = "ascendcl-trace";
/// The format version this crate writes, the newest it reads.
pub const VERSION: u64 = 2;
/// The oldest format version this crate reads (version 2 added the aclnn
/// calls of the recording shim and renamed `ndims` of
/// `aclnnReduceSumGetWorkspaceSize` to `dims`, its values).
pub const OLDEST_VERSION: u64 = 1;

/// Functions whose `ret` is data (an error code read back), not a failure.
pub const VALUE_RETURNING: &[&str] = &["aclrtGetLastError", "aclrtPeekAtLastError"];

/// A trace could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceError {
    /// 1-based line number (0: the file itself).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.message)
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for TraceError {}

/// One recorded call.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// Sequence number.
    pub seq: u64,
    /// Small id of the calling thread.
    pub thread: u64,
    /// The C function.
    pub function: String,
    /// Arguments (an object).
    pub args: Value,
    /// Out-values (an object).
    pub out: Value,
    /// Return code.
    pub ret: i32,
    /// Error text of a failing call.
    pub msg: Option<String>,
    /// Start time, ns since the producer was loaded.
    pub t_ns: u64,
    /// Duration in ns.
    pub dur_ns: u64,
}

impl Record {
    /// Parses one call line.
    pub fn parse(line: &str) -> Result<Record, String> {
        let v = Value::parse(line)?;
        let num = |key: &str| v.get(key).and_then(Value::as_u64);
        let function = v
            .get("fn")
            .and_then(Value::as_str)
            .ok_or("no \"fn\"")?
            .to_string();
        let object = |key: &str| match v.get(key) {
            Some(o @ Value::Object(_)) => Ok(o.clone()),
            _ => Err(format!("no \"{key}\" object")),
        };
        Ok(Record {
            seq: num("seq").ok_or("no \"seq\"")?,
            thread: num("thread").ok_or("no \"thread\"")?,
            args: object("args")?,
            out: object("out")?,
            ret: v
                .get("ret")
                .and_then(Value::as_i64)
                .and_then(|r| i32::try_from(r).ok())
                .ok_or("no \"ret\"")?,
            msg: v.get("msg").and_then(Value::as_str).map(str::to_string),
            t_ns: num("t_ns").unwrap_or(0),
            dur_ns: num("dur_ns").unwrap_or(0),
            function,
        })
    }

    /// An argument.
    pub fn arg(&self, key: &str) -> Option<&Value> {
        self.args.get(key)
    }

    /// An out-value.
    pub fn output(&self, key: &str) -> Option<&Value> {
        self.out.get(key)
    }

    /// Whether the call failed (a non-zero `ret` that is not data).
    pub fn failed(&self) -> bool {
        self.ret != 0 && !VALUE_RETURNING.contains(&self.function.as_str())
    }

    /// The record as a trace line.
    pub fn to_line(&self) -> String {
        let mut line = format!(
            "{{\"seq\":{},\"thread\":{},\"fn\":{},\"args\":{},\"out\":{},\"ret\":{}",
            self.seq,
            self.thread,
            quote(&self.function),
            self.args,
            self.out,
            self.ret
        );
        if let Some(msg) = &self.msg {
            line.push_str(&format!(",\"msg\":{}", quote(msg)));
        }
        line.push_str(&format!(
            ",\"t_ns\":{},\"dur_ns\":{}}}",
            self.t_ns, self.dur_ns
        ));
        line
    }
}

/// A symbolic value of an argument or out-value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Symbol {
    /// A handle: kind `c`, `s`, `e` or `p`, and its id (`s0`: default stream).
    Handle(char, u64),
    /// An address: kind `m`, `v` or `h`, block id and offset.
    Address(char, u64, u64),
    /// Host memory the runtime does not own.
    Host,
}

impl Symbol {
    /// The symbol a value stands for, if it is one.
    pub fn of(value: &Value) -> Option<Symbol> {
        Symbol::parse(value.as_str()?)
    }

    /// Parses `c3`, `m2+0x40`, `host`...
    pub fn parse(s: &str) -> Option<Symbol> {
        if s == "host" {
            return Some(Symbol::Host);
        }
        let kind = s.chars().next()?;
        let rest = &s[1..];
        match kind {
            'c' | 's' | 'e' | 'p' => rest.parse().ok().map(|id| Symbol::Handle(kind, id)),
            'm' | 'v' | 'h' => {
                let (id, off) = rest.split_once("+0x")?;
                Some(Symbol::Address(
                    kind,
                    id.parse().ok()?,
                    u64::from_str_radix(off, 16).ok()?,
                ))
            }
            _ => None,
        }
    }
}

/// The largest trace file [`Trace::read`] reads (4 GiB).
pub const MAX_TRACE_BYTES: u64 = 4 << 30;

/// A trace: its header and calls (one segment).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Trace {
    /// The header line, if the trace has one.
    pub header: Option<Value>,
    /// The calls, in file order.
    pub records: Vec<Record>,
}

impl Trace {
    /// Reads a trace file (its first segment). Only a regular file of at
    /// most [`MAX_TRACE_BYTES`] is read: a device (`/dev/zero`), a FIFO or a
    /// directory is an error, not an endless read or a blocked open.
    pub fn read(path: impl AsRef<Path>) -> Result<Trace, TraceError> {
        let path = path.as_ref();
        let fail = |message: String| TraceError {
            line: 0,
            message: format!("cannot read {}: {message}", path.display()),
        };
        // checked before opening: opening a FIFO would block until a writer comes
        if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
            return Err(fail("not a regular file".into()));
        }
        let file = std::fs::File::open(path).map_err(|e| fail(e.to_string()))?;
        let meta = file.metadata().map_err(|e| fail(e.to_string()))?;
        if !meta.is_file() {
            return Err(fail("not a regular file".into()));
        }
        if meta.len() > MAX_TRACE_BYTES {
            return Err(fail(format!(
                "{} bytes, more than the {MAX_TRACE_BYTES} a trace may have",
                meta.len()
            )));
        }
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::Read::take(file, MAX_TRACE_BYTES), &mut text)
            .map_err(|e| fail(e.to_string()))?;
        Trace::parse(&text)
    }

    /// Parses trace text (its first segment).
    pub fn parse(text: &str) -> Result<Trace, TraceError> {
        Ok(Trace::parse_segments(text)?
            .into_iter()
            .next()
            .unwrap_or_default())
    }

    /// Parses every segment: each header line starts one.
    pub fn parse_segments(text: &str) -> Result<Vec<Trace>, TraceError> {
        let mut segments: Vec<Trace> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let err = |message: String| TraceError {
                line: i + 1,
                message,
            };
            if line.contains("\"format\"") && !line.contains("\"fn\"") {
                let header = Value::parse(line).map_err(err)?;
                check_header(&header).map_err(err)?;
                segments.push(Trace {
                    header: Some(header),
                    records: Vec::new(),
                });
                continue;
            }
            let record = Record::parse(line).map_err(err)?;
            if segments.is_empty() {
                segments.push(Trace::default());
            }
            segments
                .last_mut()
                .expect("a segment was pushed")
                .records
                .push(record);
        }
        Ok(segments)
    }

    /// A header field.
    pub fn header_field(&self, key: &str) -> Option<&Value> {
        self.header.as_ref()?.get(key)
    }

    /// Who wrote the trace (`aclmock`, `ascendcl-record`, ...).
    pub fn producer(&self) -> Option<&str> {
        self.header_field("producer")?.as_str()
    }

    /// The trace as JSON lines (header first).
    pub fn to_jsonl(&self) -> String {
        let mut out = String::new();
        if let Some(h) = &self.header {
            out.push_str(&h.to_string());
            out.push('\n');
        }
        for r in &self.records {
            out.push_str(&r.to_line());
            out.push('\n');
        }
        out
    }
}

fn check_header(header: &Value) -> Result<(), String> {
    match header.get("format").and_then(Value::as_str) {
        Some(FORMAT) => {}
        other => return Err(format!("not an {FORMAT} header (format {other:?})")),
    }
    match header.get("version").and_then(Value::as_u64) {
        Some(v) if (OLDEST_VERSION..=VERSION).contains(&v) => Ok(()),
        Some(v) if v > VERSION => Err(format!(
            "trace format version {v} is newer than this reader, which reads versions \
             {OLDEST_VERSION} to {VERSION}: update ascendcl-mock (or the ascendcl CLI) to read it"
        )),
        other => Err(format!(
            "trace format version {other:?} is not supported (this crate reads \
             {OLDEST_VERSION} to {VERSION})"
        )),
    }
}

/// A header line: format, version, producer and extra fields.
pub fn header_line(producer: &str, extra: &[(&str, Value)]) -> String {
    let mut members = vec![
        ("format".to_string(), Value::String(FORMAT.into())),
        ("version".to_string(), Value::Number(VERSION.to_string())),
        ("producer".to_string(), Value::String(producer.into())),
    ];
    members.extend(extra.iter().map(|(k, v)| (k.to_string(), v.clone())));
    Value::Object(members).to_string()
}
