// A view cannot outlive the buffer it points into.
use ascendcl::prelude::*;

fn dangling(ctx: &Context) -> ascendcl::Result<Vec<u8>> {
    let view = {
        let buffer = DeviceBuffer::<u8>::zeroed(ctx, 16)?;
        buffer.slice(0..8)?
    };
    view.to_vec()
}

fn main() {}
