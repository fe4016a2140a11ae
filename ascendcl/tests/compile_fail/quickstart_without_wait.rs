// The quickstart example with its synchronization removed does not compile.
use ascendcl::prelude::*;

fn round_trip(ctx: &Context, stream: &Stream, values: &[f32]) -> ascendcl::Result<bool> {
    let input = HostBuffer::from_slice(ctx, values)?;
    let mut on_device = DeviceBuffer::<f32>::alloc(ctx, values.len())?;
    let mut output = HostBuffer::<f32>::zeroed(ctx, values.len())?;
    let upload = stream.copy_host_to_device(&input, &mut on_device)?;
    let download = stream.copy_device_to_host(upload.destination(), &mut output)?;
    // download.wait()?;
    // upload.wait()?;
    Ok(output.iter().zip(values).all(|(a, b)| a == b))
}

fn main() {}
