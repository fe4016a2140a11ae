//! Output views whose elements alias each other, refused before any FFI
//! call.
//!
//! A view with a stride-0 dimension (a broadcast) or with strides that
//! interleave (`shape [2, 3]`, `strides [1, 1]`) names one memory element
//! under several indices. CANN does not refuse such an output: the bounds
//! check of a view (hicann/opbase v8.5.0
//! `src/nnopbase/composite_op/utils/tensor_view_utils.cpp:50-71`) only keeps
//! it inside its storage, and the copy of a result into a strided output
//! (hicann/ops-math v8.5.0 `conversion/contiguous/op_host/op_api/contiguous.cpp:620-700`,
//! `ViewCopy` and its `CheckViewCopyParams`) checks dtypes, formats and
//! shapes only. The device then writes the same element from several
//! cores in an undefined order: a data race, with a result nobody chose.
//! The safe layer refuses every writable view ([`TensorMut`](super::TensorMut))
//! that may write an element twice.

use crate::error::{Error, Result};
use crate::ops::tensor::{Layout, MAX_DIMS};

/// Views of at most this many elements whose strides the quick rule cannot
/// separate are checked exactly, by listing their element offsets.
const EXACT_CHECK_LIMIT: usize = 1 << 20;

/// `Ok(())` if no two indices of `layout` reach the same element.
///
/// The quick rule: with the dimensions of extent > 1 sorted by stride, each
/// stride must reach past everything the smaller ones span (stride >= 1 +
/// sum of (extent - 1) * stride over them); then every index has its own
/// element. A view that fails it may still be free of overlap (interleaved
/// strides such as `shape [3, 2]`, `strides [2, 3]`): up to
/// [`EXACT_CHECK_LIMIT`] elements that is decided exactly, above it the view
/// is refused as possibly overlapping.
pub(crate) fn check_output(layout: &Layout) -> Result<()> {
    if layout.shape.contains(&0) {
        return Ok(()); // no element at all
    }
    // (stride, extent, dimension) of the dimensions with more than one
    // index, sorted by stride; a layout has at most MAX_DIMS of them.
    let mut sorted = [(0u128, 0u128, 0usize); MAX_DIMS];
    let mut len = 0;
    for (dim, (&extent, &stride)) in layout.shape.iter().zip(&layout.strides).enumerate() {
        if extent > 1 {
            sorted[len] = (stride as u128, extent as u128, dim);
            len += 1;
        }
    }
    let dims = &mut sorted[..len];
    dims.sort_unstable();
    let mut span: u128 = 0; // the largest offset the smaller strides reach
    let mut blocking = None;
    for &(stride, extent, dim) in dims.iter() {
        if stride == 0 {
            return Err(refused(
                layout,
                &format!(
                    "dimension {dim} has stride 0, so all its {extent} indices write one element"
                ),
            ));
        }
        if stride <= span && blocking.is_none() {
            blocking = Some((dim, stride, span + 1));
        }
        span += (extent - 1) * stride;
    }
    let Some((dim, stride, needed)) = blocking else {
        return Ok(());
    };
    let numel: usize = layout.shape.iter().map(|&d| d as usize).product();
    let why = format!(
        "dimension {dim} has stride {stride}, less than the {needed} elements the dimensions \
         of smaller stride span"
    );
    if numel > EXACT_CHECK_LIMIT {
        return Err(refused(
            layout,
            &format!("{why}, so it may write an element twice"),
        ));
    }
    match first_repeat(layout) {
        None => Ok(()),
        Some(offset) => Err(refused(
            layout,
            &format!("{why}: element {offset} is written more than once"),
        )),
    }
}

/// The smallest element offset two indices of `layout` share, if any.
fn first_repeat(layout: &Layout) -> Option<i64> {
    let mut offsets = vec![layout.offset];
    for (&extent, &stride) in layout.shape.iter().zip(&layout.strides) {
        let mut next = Vec::with_capacity(offsets.len() * extent as usize);
        for &base in &offsets {
            next.extend((0..extent).map(|i| base + i * stride));
        }
        offsets = next;
    }
    offsets.sort_unstable();
    offsets.windows(2).find(|w| w[0] == w[1]).map(|w| w[0])
}

fn refused(layout: &Layout, why: &str) -> Error {
    Error::invalid(format!(
        "an output view of shape {:?} and strides {:?} aliases its own elements ({why}); \
         the device would race on them. Write into memory of its own (a contiguous \
         TensorMut::new, or strides that do not overlap) and broadcast or copy from there",
        layout.shape, layout.strides
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(shape: &[i64], strides: &[i64]) -> Layout {
        Layout {
            shape: crate::ops::tensor::Dims::from_slice(shape),
            strides: crate::ops::tensor::Dims::from_slice(strides),
            offset: 0,
        }
    }

    fn ok(shape: &[i64], strides: &[i64]) -> bool {
        check_output(&view(shape, strides)).is_ok()
    }

    #[test]
    fn contiguous_transposed_sliced_and_padded_views_do_not_overlap() {
        assert!(ok(&[2, 3], &[3, 1]));
        assert!(ok(&[3, 2], &[1, 3]), "a transpose");
        assert!(ok(&[2, 3], &[8, 2]), "every other element, padded rows");
        assert!(ok(&[4, 1, 5], &[5, 0, 1]), "size-1 dimensions are ignored");
        assert!(ok(&[0, 7], &[0, 0]), "an empty view writes nothing");
        assert!(ok(&[], &[]), "a scalar");
        assert!(ok(&[3, 2], &[2, 3]), "interleaved strides that never meet");
    }

    #[test]
    fn stride_0_and_overlapping_strides_are_refused_naming_the_dimension() {
        let e = check_output(&view(&[4, 3], &[0, 1]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("dimension 0 has stride 0"), "{e}");
        let e = check_output(&view(&[2, 3], &[1, 1]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("element 1 is written more than once"), "{e}");
        assert!(!ok(&[3, 3], &[2, 1]), "rows of 3 two apart");
        assert!(!ok(&[2, 2, 2], &[2, 1, 1]));
        // too large to list: refused as possibly overlapping
        let e = check_output(&view(&[2048, 1024], &[1023, 1]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("may write an element twice"), "{e}");
    }
}
