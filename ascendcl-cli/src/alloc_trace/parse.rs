//! The parser of the JSON lines format (see [`Trace::to_json_lines`]):
//! one flat object per line, whose values are unsigned integers, strings or
//! arrays of unsigned integers. It never panics; every error names its line.
//!
//! [`Trace::to_json_lines`]: super::Trace::to_json_lines

use super::{Dtype, GradMode, OpKind, Optimizer, TraceError, TraceMeta, TraceOp};

/// A JSON value of the trace format.
pub(super) enum Value {
    Number(u64),
    String(String),
    List(Vec<u64>),
}

/// A recursive-descent parser of one flat JSON object.
pub(super) struct Parser<'a> {
    bytes: &'a [u8],
    pos: usize,
    line: usize,
}

impl<'a> Parser<'a> {
    /// A parser of `line`, the text of line number `number`.
    pub(super) fn new(line: &'a str, number: usize) -> Self {
        Parser {
            bytes: line.as_bytes(),
            pos: 0,
            line: number,
        }
    }

    fn error(&self, expected: &'static str) -> TraceError {
        TraceError::Syntax {
            line: self.line,
            column: self.pos + 1,
            expected,
        }
    }

    fn skip_ws(&mut self) {
        while matches!(self.bytes.get(self.pos), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.pos += 1;
        }
    }

    /// Skips whitespace and consumes `byte` if it is next.
    fn eat(&mut self, byte: u8) -> bool {
        self.skip_ws();
        let found = self.bytes.get(self.pos) == Some(&byte);
        self.pos += usize::from(found);
        found
    }

    fn expect(&mut self, byte: u8, expected: &'static str) -> Result<(), TraceError> {
        if self.eat(byte) {
            Ok(())
        } else {
            Err(self.error(expected))
        }
    }

    /// The fields of the line's object, in order.
    pub(super) fn object(mut self) -> Result<Vec<(String, Value)>, TraceError> {
        self.expect(b'{', "`{`")?;
        let mut fields = Vec::new();
        if !self.eat(b'}') {
            loop {
                self.skip_ws();
                let key = self.string()?;
                self.expect(b':', "`:`")?;
                let value = self.value()?;
                fields.push((key, value));
                if self.eat(b'}') {
                    break;
                }
                self.expect(b',', "`,` or `}`")?;
            }
        }
        self.skip_ws();
        if self.pos < self.bytes.len() {
            return Err(self.error("end of line"));
        }
        Ok(fields)
    }

    fn value(&mut self) -> Result<Value, TraceError> {
        self.skip_ws();
        match self.bytes.get(self.pos) {
            Some(b'"') => Ok(Value::String(self.string()?)),
            Some(b'[') => {
                self.pos += 1;
                let mut items = Vec::new();
                if !self.eat(b']') {
                    loop {
                        self.skip_ws();
                        items.push(self.number()?);
                        if self.eat(b']') {
                            break;
                        }
                        self.expect(b',', "`,` or `]`")?;
                    }
                }
                Ok(Value::List(items))
            }
            _ => Ok(Value::Number(self.number()?)),
        }
    }

    fn number(&mut self) -> Result<u64, TraceError> {
        let start = self.pos;
        let digits = self.bytes[start..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits == 0 || (digits > 1 && self.bytes[start] == b'0') {
            return Err(self.error("an unsigned integer"));
        }
        let mut n: u64 = 0;
        for &d in &self.bytes[start..start + digits] {
            n = match n
                .checked_mul(10)
                .and_then(|n| n.checked_add(u64::from(d - b'0')))
            {
                Some(n) => n,
                None => return Err(self.error("an integer below 2^64")),
            };
        }
        self.pos += digits;
        if matches!(self.bytes.get(self.pos), Some(b'.' | b'e' | b'E')) {
            return Err(self.error("an unsigned integer"));
        }
        Ok(n)
    }

    fn string(&mut self) -> Result<String, TraceError> {
        if self.bytes.get(self.pos) != Some(&b'"') {
            return Err(self.error("a string"));
        }
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            let Some(&b) = self.bytes.get(self.pos) else {
                return Err(self.error("closing `\"`"));
            };
            self.pos += 1;
            match b {
                b'"' => break,
                b'\\' => {
                    let escaped = match self.bytes.get(self.pos) {
                        Some(b'"') => b'"',
                        Some(b'\\') => b'\\',
                        Some(b'/') => b'/',
                        Some(b'n') => b'\n',
                        Some(b't') => b'\t',
                        Some(b'r') => b'\r',
                        Some(b'b') => 0x08,
                        Some(b'f') => 0x0c,
                        Some(b'u') => {
                            let hex = self.bytes.get(self.pos + 1..self.pos + 5);
                            let code = hex
                                .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
                                .and_then(|h| std::str::from_utf8(h).ok())
                                .and_then(|h| u32::from_str_radix(h, 16).ok())
                                .and_then(char::from_u32)
                                .ok_or_else(|| self.error("four hex digits of a character"))?;
                            self.pos += 5;
                            out.extend_from_slice(code.encode_utf8(&mut [0; 4]).as_bytes());
                            continue;
                        }
                        _ => return Err(self.error("an escape sequence")),
                    };
                    self.pos += 1;
                    out.push(escaped);
                }
                0..0x20 => {
                    self.pos -= 1;
                    return Err(self.error("an escaped control character"));
                }
                b => out.push(b),
            }
        }
        // The line is valid UTF-8 and escapes produce whole characters.
        String::from_utf8(out).map_err(|_| self.error("UTF-8 text"))
    }
}

/// The fields of one line, consumed by name.
pub(super) struct Fields {
    line: usize,
    fields: Vec<(String, Value)>,
}

impl Fields {
    pub(super) fn new(line: usize, fields: Vec<(String, Value)>) -> Self {
        Fields { line, fields }
    }

    pub(super) fn has(&self, name: &str) -> bool {
        self.fields.iter().any(|(k, _)| k == name)
    }

    /// Rejects duplicate and unknown fields.
    fn only(&self, names: &[&str]) -> Result<(), TraceError> {
        for (i, (key, _)) in self.fields.iter().enumerate() {
            let line = self.line;
            if !names.contains(&key.as_str()) {
                return Err(TraceError::UnknownField {
                    line,
                    field: key.clone(),
                });
            }
            if self.fields[..i].iter().any(|(k, _)| k == key) {
                return Err(TraceError::DuplicateField {
                    line,
                    field: key.clone(),
                });
            }
        }
        Ok(())
    }

    fn take(&mut self, field: &'static str) -> Result<Value, TraceError> {
        match self.fields.iter().position(|(k, _)| k == field) {
            Some(i) => Ok(self.fields.swap_remove(i).1),
            None => Err(TraceError::MissingField {
                line: self.line,
                field,
            }),
        }
    }

    fn wrong(&self, field: &'static str, expected: &'static str) -> TraceError {
        TraceError::WrongType {
            line: self.line,
            field,
            expected,
        }
    }

    fn u64(&mut self, field: &'static str) -> Result<u64, TraceError> {
        match self.take(field)? {
            Value::Number(n) => Ok(n),
            _ => Err(self.wrong(field, "an unsigned integer")),
        }
    }

    fn u32(&mut self, field: &'static str) -> Result<u32, TraceError> {
        let value = self.u64(field)?;
        u32::try_from(value).map_err(|_| TraceError::OutOfRange {
            line: self.line,
            field,
            value,
        })
    }

    fn string(&mut self, field: &'static str) -> Result<String, TraceError> {
        match self.take(field)? {
            Value::String(s) => Ok(s),
            _ => Err(self.wrong(field, "a string")),
        }
    }

    fn list(&mut self, field: &'static str) -> Result<Vec<u64>, TraceError> {
        match self.take(field)? {
            Value::List(items) => Ok(items),
            _ => Err(self.wrong(field, "an array of unsigned integers")),
        }
    }

    /// A string naming one of a field's values.
    fn name<T>(
        &mut self,
        field: &'static str,
        parse: fn(&str) -> Option<T>,
    ) -> Result<T, TraceError> {
        let value = self.string(field)?;
        parse(&value).ok_or(TraceError::UnknownValue {
            line: self.line,
            field,
            value,
        })
    }

    pub(super) fn header(mut self) -> Result<TraceMeta, TraceError> {
        self.only(&[
            "model",
            "dtype",
            "optimizer",
            "grads",
            "batches",
            "persistent",
        ])?;
        let model = self.string("model")?;
        let dtype = self.name("dtype", Dtype::from_name)?;
        let optimizer = self.name("optimizer", Optimizer::from_name)?;
        let grads = self.name("grads", GradMode::from_name)?;
        let batches = self
            .list("batches")?
            .into_iter()
            .map(|value| {
                let line = self.line;
                u32::try_from(value).map_err(|_| TraceError::OutOfRange {
                    line,
                    field: "batches",
                    value,
                })
            })
            .collect::<Result<_, _>>()?;
        let persistent = self.list("persistent")?;
        Ok(TraceMeta {
            model,
            dtype,
            optimizer,
            grads,
            batches,
            persistent,
        })
    }

    pub(super) fn op(mut self) -> Result<TraceOp, TraceError> {
        self.only(&["step", "op", "id", "bytes", "stream"])?;
        let step = self.u32("step")?;
        let parse = |s: &str| match s {
            "alloc" => Some(OpKind::Alloc),
            "free" => Some(OpKind::Free),
            _ => None,
        };
        let kind = self.name("op", parse)?;
        let id = self.u64("id")?;
        let bytes = self.u64("bytes")?;
        let stream = self.u32("stream")?;
        Ok(TraceOp {
            step,
            kind,
            id,
            bytes,
            stream,
        })
    }
}
