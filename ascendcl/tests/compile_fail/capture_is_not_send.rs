// A non-relaxed capture must end on the thread that began it (CANN refuses
// another with 107038): the capture cannot move to another thread.
use ascendcl::graph::{Capture, CaptureMode};

fn end_elsewhere(stream: &ascendcl::Stream) -> ascendcl::Result<()> {
    let capture = Capture::begin(stream, CaptureMode::Global)?;
    std::thread::scope(|s| {
        s.spawn(move || drop(capture.end()));
    });
    Ok(())
}

fn main() {}
