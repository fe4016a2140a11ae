// A 1-byte type declaring HCCL's INT64 would make a collective move 8x its
// buffer: no type outside the crate can be an HcclElement.
use ascendcl::hccl::HcclElement;
use ascendcl_sys::HcclDataType;

#[derive(Clone, Copy)]
#[repr(transparent)]
struct Byte(u8);

// SAFETY: a transparent u8.
unsafe impl bytemuck::Zeroable for Byte {}
// SAFETY: a transparent u8.
unsafe impl bytemuck::Pod for Byte {}

impl HcclElement for Byte {
    const DATA_TYPE: HcclDataType = HcclDataType::HCCL_DATA_TYPE_INT64;
}

fn main() {}
