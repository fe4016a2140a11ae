//! The report for programs: [`Report::to_json`], one JSON object on one line.
//!
//! Written by hand (no serde in this workspace): every value the report holds
//! implements [`ToJson`], and [`Obj`] writes the `"key":value` pairs of an
//! object, so each part of the report is one short list of fields.

use std::fmt::Write as _;
use std::path::PathBuf;

use ascendcl::RunMode;
use ascendcl_sys::Attempt;
use ascendcl_sys::cann::Layout;

use super::Report;
use super::diagnose::driver_check_applies;
use super::facts::{
    DeviceFacts, DriverDir, LibraryFacts, Origin, RootFacts, RuntimeFacts, run_mode_key,
};
use super::problem::Problem;
use crate::json::write_str;

impl Report {
    /// The report as one JSON object.
    pub fn to_json(&self) -> String {
        let facts = &self.facts;
        let mut out = String::new();
        Obj::new(&mut out)
            .field("ok", &self.problems.is_empty())
            .field("library", &facts.library)
            .field("declared_version", &ascendcl_sys::DECLARED_VERSION)
            .field("runtime", &facts.runtime)
            .field("cann_roots", &facts.cann_roots)
            .field(
                "env",
                &With(|out: &mut String| {
                    // The variables in ENV_VARS order, null when not set.
                    let mut env = Obj::new(out);
                    for (name, value) in &facts.env {
                        env.field(name, value);
                    }
                    env.end();
                }),
            )
            .field(
                "driver",
                &With(|out: &mut String| {
                    Obj::new(out)
                        .field("checked", &driver_check_applies(facts))
                        .field("dirs", &facts.driver_dirs)
                        .field("device_nodes", &facts.device_nodes)
                        .end();
                }),
            )
            .field("notes", &self.notes)
            .field("problems", &self.problems)
            .end();
        out
    }
}

/// A value that writes itself as JSON.
trait ToJson {
    fn write_json(&self, out: &mut String);
}

/// Writes the `"key":value` pairs of one object: `{` on creation, `}` on [`Obj::end`].
struct Obj<'a> {
    out: &'a mut String,
    empty: bool,
}

impl<'a> Obj<'a> {
    fn new(out: &'a mut String) -> Obj<'a> {
        out.push('{');
        Obj { out, empty: true }
    }

    fn field(&mut self, key: &str, value: &(impl ToJson + ?Sized)) -> &mut Self {
        if !self.empty {
            self.out.push(',');
        }
        self.empty = false;
        write_str(self.out, key);
        self.out.push(':');
        value.write_json(self.out);
        self
    }

    fn end(&mut self) {
        self.out.push('}');
    }
}

// ------------------------------------------------------------------ plain values

/// Numbers and booleans are written as Rust displays them.
macro_rules! display_to_json {
    ($($t:ty),*) => {$(
        impl ToJson for $t {
            fn write_json(&self, out: &mut String) {
                let _ = write!(out, "{self}");
            }
        }
    )*};
}
display_to_json!(bool, i32, u32, usize);

impl ToJson for str {
    fn write_json(&self, out: &mut String) {
        write_str(out, self);
    }
}

impl ToJson for String {
    fn write_json(&self, out: &mut String) {
        write_str(out, self);
    }
}

impl ToJson for PathBuf {
    fn write_json(&self, out: &mut String) {
        write_str(out, &self.display().to_string());
    }
}

/// `null` when absent.
impl<T: ToJson> ToJson for Option<T> {
    fn write_json(&self, out: &mut String) {
        match self {
            Some(value) => value.write_json(out),
            None => out.push_str("null"),
        }
    }
}

/// A failed query is `{"error":"..."}` in place of its value.
impl<T: ToJson> ToJson for Result<T, String> {
    fn write_json(&self, out: &mut String) {
        match self {
            Ok(value) => value.write_json(out),
            Err(error) => Obj::new(out).field("error", error).end(),
        }
    }
}

impl<T: ToJson> ToJson for [T] {
    fn write_json(&self, out: &mut String) {
        out.push('[');
        for (i, item) in self.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            item.write_json(out);
        }
        out.push(']');
    }
}

impl<T: ToJson> ToJson for Vec<T> {
    fn write_json(&self, out: &mut String) {
        self.as_slice().write_json(out);
    }
}

/// A version `(major, minor, patch)` as `[major,minor,patch]`.
impl<T: std::fmt::Display> ToJson for (T, T, T) {
    fn write_json(&self, out: &mut String) {
        let _ = write!(out, "[{},{},{}]", self.0, self.1, self.2);
    }
}

/// JSON written by a closure, for parts of the report that are not one value.
struct With<F>(F);

impl<F: Fn(&mut String)> ToJson for With<F> {
    fn write_json(&self, out: &mut String) {
        (self.0)(out);
    }
}

impl ToJson for RunMode {
    fn write_json(&self, out: &mut String) {
        run_mode_key(*self).write_json(out);
    }
}

impl ToJson for Layout {
    fn write_json(&self, out: &mut String) {
        let key = match self {
            Layout::Toolkit => "toolkit",
            Layout::Cann85 => "cann85",
            Layout::Unrecognised => "unrecognised",
        };
        key.write_json(out);
    }
}

// ------------------------------------------------------------------ the facts

impl ToJson for Attempt {
    fn write_json(&self, out: &mut String) {
        Obj::new(out)
            .field("candidate", &self.candidate)
            .field("source", &self.source)
            .field("reason", &self.reason)
            .end();
    }
}

impl ToJson for LibraryFacts {
    fn write_json(&self, out: &mut String) {
        let mut obj = Obj::new(out);
        match self {
            LibraryFacts::Loaded(lib) => {
                let (origin, attempts): (_, &[Attempt]) = match &lib.origin {
                    Origin::Selected => ("selected", &[]),
                    Origin::Discovered => ("discovered", &[]),
                    Origin::Mock => ("mock", &[]),
                };
                obj.field("status", "loaded")
                    .field("path", &lib.path)
                    .field("origin", origin)
                    .field("is_mock", &lib.is_mock)
                    .field("missing_functions", &lib.missing_functions)
                    .field("attempts", attempts)
            }
            LibraryFacts::NotFound { attempts } => {
                obj.field("status", "not-found").field("attempts", attempts)
            }
            LibraryFacts::InvalidFile {
                file,
                source,
                problem,
            } => obj
                .field("status", "invalid-file")
                .field("file", file)
                .field("source", source)
                .field("problem", &problem.to_string()),
            LibraryFacts::Unusable { error } => {
                obj.field("status", "unusable").field("error", error)
            }
        }
        .end();
    }
}

impl ToJson for RuntimeFacts {
    fn write_json(&self, out: &mut String) {
        Obj::new(out)
            .field("version", &self.version)
            .field("cann_version", &self.cann_version)
            .field("soc_name", &self.soc_name)
            .field("run_mode", &self.run_mode)
            .field("device_count", &self.device_count)
            .field("devices", &self.devices)
            .end();
    }
}

impl ToJson for DeviceFacts {
    fn write_json(&self, out: &mut String) {
        let mut obj = Obj::new(out);
        obj.field("id", &self.id);
        match &self.memory {
            Ok(m) => obj.field("hbm_total", &m.total).field("hbm_free", &m.free),
            Err(error) => obj.field("error", error),
        }
        .end();
    }
}

impl ToJson for RootFacts {
    fn write_json(&self, out: &mut String) {
        Obj::new(out)
            .field("path", &self.path)
            .field("source", &self.source)
            .field("exists", &self.exists)
            .field("layout", &self.layout)
            .field("libraries", &self.libraries)
            .end();
    }
}

impl ToJson for DriverDir {
    fn write_json(&self, out: &mut String) {
        Obj::new(out)
            .field("path", &self.path)
            .field("source", &self.source)
            .field("exists", &self.exists)
            .field("has_driver_library", &self.has_driver_library)
            .end();
    }
}

impl ToJson for Problem {
    fn write_json(&self, out: &mut String) {
        Obj::new(out)
            .field("kind", self.kind.as_str())
            .field("summary", &self.summary)
            .field("details", &self.details)
            .field("fix", &self.fix)
            .end();
    }
}
