// Device memory bound to a capture belongs to the graph for its whole life:
// reading it from the host while the graph lives does not compile.
use ascendcl::graph::{Capture, CaptureMode};
use ascendcl::prelude::*;

fn read_while_bound(stream: &Stream, y: &mut DeviceBuffer<f32>) -> ascendcl::Result<()> {
    let mut cap = Capture::begin(stream, CaptureMode::Global)?;
    let _by = cap.bind(y)?;
    let mut graph = cap.end()?;
    let early = y.to_vec()?;
    graph.launch(stream)?.wait()?;
    drop(early);
    Ok(())
}

fn main() {}
