//! Weights in safetensors files: device tensors loaded by name, and saved
//! (feature `safetensors`).
//!
//! A safetensors file is what `safetensors.torch.save_file(state_dict,
//! path)` writes: a JSON header naming each tensor's dtype, shape and byte
//! range, then the little-endian bytes. Parsing and writing are the
//! [`safetensors`] crate's; this module checks each tensor against what the
//! program expects — its Rust element type and its shape — and names the
//! tensor in every error, before any device memory is allocated.
//!
//! ```
//! # let rt = ascendcl::Runtime::with_library(ascendcl_mock::library().unwrap())?;
//! use ascendcl::ops::DeviceTensor;
//! use ascendcl::weights::{self, Weights};
//! let ctx = ascendcl::Device::open(&rt, 0)?.default_context();
//! let w = DeviceTensor::from_host(&ctx, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
//! let b = DeviceTensor::from_host(&ctx, &[7i64, 8], &[2])?;
//! let path = std::env::temp_dir().join(format!("weights-doc-{}.safetensors", std::process::id()));
//! weights::save(&path, &[("layer.weight", &w), ("layer.index", &b)])?;
//!
//! let file = Weights::read(&path)?;
//! let w2: DeviceTensor<f32> = file.to_device(&ctx, "layer.weight", &[2, 3])?;
//! assert_eq!(w2.to_vec()?, w.to_vec()?);
//! // A wrong shape, dtype or name is an error naming the tensor.
//! let wrong = file.to_device::<f32>(&ctx, "layer.weight", &[3, 2]).unwrap_err();
//! assert!(wrong.to_string().contains("layer.weight"));
//! assert!(file.to_device::<f64>(&ctx, "layer.weight", &[2, 3]).is_err());
//! assert!(file.to_device::<f32>(&ctx, "missing", &[1]).is_err());
//! std::fs::remove_file(&path).ok();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::{Path, PathBuf};

use safetensors::SafeTensors;
use safetensors::tensor::{Dtype, TensorView};

use crate::context::Context;
use crate::memory::DeviceSliceMut;
use crate::ops::{DType, DeviceTensor, Element};

/// What can go wrong reading, checking or writing weights.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WeightsError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not a valid safetensors file.
    #[error("{path}: not a valid safetensors file: {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What the parser said.
        message: String,
    },
    /// No tensor of that name.
    #[error("{path}: no tensor named {name:?} (the file has: {available})")]
    Missing {
        /// The file.
        path: PathBuf,
        /// The name asked for.
        name: String,
        /// The names in the file, comma-separated (the first 20).
        available: String,
    },
    /// The tensor's dtype is not the one asked for.
    #[error(
        "{path}: tensor {name:?} is {found} in the file, but {wanted:?} was asked for; \
             convert it when saving (e.g. `t.to(torch.float32)`) or load it with the matching type"
    )]
    Dtype {
        /// The file.
        path: PathBuf,
        /// The tensor.
        name: String,
        /// Its dtype in the file.
        found: String,
        /// The dtype asked for.
        wanted: DType,
    },
    /// The tensor's shape is not the one asked for.
    #[error(
        "{path}: tensor {name:?} has shape {found:?} in the file, but {wanted:?} was asked for"
    )]
    Shape {
        /// The file.
        path: PathBuf,
        /// The tensor.
        name: String,
        /// Its shape in the file.
        found: Vec<usize>,
        /// The shape asked for.
        wanted: Vec<usize>,
    },
    /// A device call failed (allocating, copying, reading back).
    #[error("tensor {name:?}: {source}")]
    Device {
        /// The tensor.
        name: String,
        /// The runtime's error.
        source: crate::Error,
    },
}

/// The safetensors dtype of `dtype`.
fn file_dtype(dtype: DType) -> Dtype {
    match dtype {
        DType::F32 => Dtype::F32,
        DType::F16 => Dtype::F16,
        DType::BF16 => Dtype::BF16,
        DType::F64 => Dtype::F64,
        DType::I8 => Dtype::I8,
        DType::I16 => Dtype::I16,
        DType::I32 => Dtype::I32,
        DType::I64 => Dtype::I64,
        DType::U8 => Dtype::U8,
        DType::Bool => Dtype::BOOL,
    }
}

/// A safetensors file read into memory.
#[derive(Debug)]
pub struct Weights {
    path: PathBuf,
    bytes: Vec<u8>,
}

impl Weights {
    /// Reads and parses the file (the tensors are checked when loaded).
    pub fn read(path: impl AsRef<Path>) -> Result<Weights, WeightsError> {
        let path = path.as_ref().to_path_buf();
        let bytes = std::fs::read(&path).map_err(|source| WeightsError::Io {
            path: path.clone(),
            source,
        })?;
        let weights = Weights { path, bytes };
        weights.parsed()?;
        Ok(weights)
    }

    fn parsed(&self) -> Result<SafeTensors<'_>, WeightsError> {
        SafeTensors::deserialize(&self.bytes).map_err(|e| WeightsError::Format {
            path: self.path.clone(),
            message: e.to_string(),
        })
    }

    /// The tensor names, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .parsed()
            .map(|st| st.names().into_iter().map(str::to_string).collect())
            .unwrap_or_default();
        names.sort();
        names
    }

    /// The dtype (as the file names it) and shape of tensor `name`.
    pub fn info(&self, name: &str) -> Result<(String, Vec<usize>), WeightsError> {
        let parsed = self.parsed()?;
        let view = self.view(&parsed, name)?;
        Ok((format!("{:?}", view.dtype()), view.shape().to_vec()))
    }

    fn view<'a>(
        &self,
        parsed: &SafeTensors<'a>,
        name: &str,
    ) -> Result<TensorView<'a>, WeightsError> {
        parsed.tensor(name).map_err(|_| {
            let names = self.names();
            let mut available = names
                .iter()
                .take(20)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ");
            if names.len() > 20 {
                available.push_str(", ...");
            }
            WeightsError::Missing {
                path: self.path.clone(),
                name: name.to_string(),
                available,
            }
        })
    }

    /// Tensor `name` as host values of `T`, checked to have `T`'s dtype and
    /// the shape `shape`.
    pub fn to_host<T: Element>(&self, name: &str, shape: &[usize]) -> Result<Vec<T>, WeightsError> {
        let parsed = self.parsed()?;
        let view = self.view(&parsed, name)?;
        let wanted = T::DTYPE;
        if file_dtype(wanted) != view.dtype() {
            return Err(WeightsError::Dtype {
                path: self.path.clone(),
                name: name.to_string(),
                found: format!("{:?}", view.dtype()),
                wanted,
            });
        }
        if view.shape() != shape {
            return Err(WeightsError::Shape {
                path: self.path.clone(),
                name: name.to_string(),
                found: view.shape().to_vec(),
                wanted: shape.to_vec(),
            });
        }
        // The parser checked that the byte range holds the shape's elements;
        // the file's bytes are not aligned for `T`, so they are copied.
        let data = view.data();
        let mut values = vec![T::zeroed(); data.len() / std::mem::size_of::<T>()];
        bytemuck::cast_slice_mut::<T, u8>(&mut values).copy_from_slice(data);
        Ok(values)
    }

    /// Tensor `name` in a new device tensor on `ctx`, checked as
    /// [`Weights::to_host`] checks it (before any device memory is taken).
    pub fn to_device<T: Element>(
        &self,
        ctx: &Context,
        name: &str,
        shape: &[usize],
    ) -> Result<DeviceTensor<T>, WeightsError> {
        let values = self.to_host::<T>(name, shape)?;
        DeviceTensor::from_host(ctx, &values, shape).map_err(|source| WeightsError::Device {
            name: name.to_string(),
            source,
        })
    }
}

/// A tensor that can be saved: its dtype, shape and bytes (read after any
/// queued write).
pub trait Saveable {
    /// dtype, shape and little-endian bytes.
    fn saved(&self) -> crate::Result<(DType, Vec<usize>, Vec<u8>)>;
}

impl<T: Element, M: DeviceSliceMut<T>> Saveable for DeviceTensor<T, M> {
    fn saved(&self) -> crate::Result<(DType, Vec<usize>, Vec<u8>)> {
        let values = self.to_vec()?;
        Ok((
            T::DTYPE,
            self.shape(),
            bytemuck::cast_slice(&values).to_vec(),
        ))
    }
}

/// Writes `tensors` (name, tensor) to a safetensors file that
/// `safetensors.torch.load_file` reads; each device tensor is read back
/// after its queued writes.
pub fn save(path: impl AsRef<Path>, tensors: &[(&str, &dyn Saveable)]) -> Result<(), WeightsError> {
    let path = path.as_ref();
    let mut owned = Vec::with_capacity(tensors.len());
    for (name, tensor) in tensors {
        let (dtype, shape, bytes) = tensor.saved().map_err(|source| WeightsError::Device {
            name: name.to_string(),
            source,
        })?;
        owned.push((name.to_string(), file_dtype(dtype), shape, bytes));
    }
    let views = owned
        .iter()
        .map(|(name, dtype, shape, bytes)| {
            TensorView::new(*dtype, shape.clone(), bytes)
                .map(|view| (name.clone(), view))
                .map_err(|e| WeightsError::Format {
                    path: path.to_path_buf(),
                    message: format!("tensor {name:?}: {e}"),
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    safetensors::serialize_to_file(views, None, path).map_err(|e| WeightsError::Format {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}
