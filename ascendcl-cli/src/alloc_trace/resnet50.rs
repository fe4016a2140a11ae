//! The ResNet-50 architecture as a graph of layers with their real shapes.
//!
//! This is torchvision's `resnet50()` (v1.5: the stride of a downsampling
//! bottleneck is on its 3×3 convolution, not on the first 1×1), for a
//! 3×224×224 input and 1000 classes:
//!
//! | stage | layers | output (C×H×W per sample) |
//! |---|---|---|
//! | stem | conv1 7×7/2 64, bn1, relu, maxpool 3×3/2 | 64×56×56 |
//! | layer1 | 3 bottlenecks, width 64 | 256×56×56 |
//! | layer2 | 4 bottlenecks, width 128, first /2 | 512×28×28 |
//! | layer3 | 6 bottlenecks, width 256, first /2 | 1024×14×14 |
//! | layer4 | 3 bottlenecks, width 512, first /2 | 2048×7×7 |
//! | head | avgpool, flatten, fc 2048→1000 | 1000 |
//!
//! A bottleneck is `conv1 1×1, bn1, relu, conv2 3×3 (stride), bn2, relu,
//! conv3 1×1 (×4 channels), bn3, [downsample: conv 1×1 stride, bn], add
//! (in place), relu (in place)`. Layers are listed in the order PyTorch eager
//! executes them in the forward pass, which is also the order in which the
//! autograd engine runs their backward in reverse.
//!
//! State tensors (parameters and buffers) are listed in the order
//! `model.to(device)` moves them: depth-first over the modules, a module's
//! parameters (`weight`, `bias`) then its buffers (`running_mean`,
//! `running_var`, `num_batches_tracked`).

/// Per-sample shape of an activation: channels × height × width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Channels (or features).
    pub c: u32,
    /// Height.
    pub h: u32,
    /// Width.
    pub w: u32,
}

impl Shape {
    /// A C×H×W shape.
    pub const fn new(c: u32, h: u32, w: u32) -> Self {
        Shape { c, h, w }
    }

    /// Elements per sample.
    pub const fn numel(self) -> u64 {
        self.c as u64 * self.h as u64 * self.w as u64
    }
}

/// What a layer computes (the PyTorch module or functional op).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayerOp {
    /// `nn.Conv2d(bias=False)` with a square kernel.
    Conv2d {
        /// Input channels.
        in_channels: u32,
        /// Output channels.
        out_channels: u32,
        /// Kernel height and width.
        kernel: u32,
        /// Stride in both dimensions.
        stride: u32,
        /// Zero padding on each side.
        padding: u32,
    },
    /// `nn.BatchNorm2d` in training mode (affine, tracking running stats).
    BatchNorm2d {
        /// Channels normalised.
        channels: u32,
    },
    /// `nn.ReLU(inplace=True)`: overwrites its input.
    ReluInplace,
    /// `nn.MaxPool2d`, which keeps int64 indices for its backward.
    MaxPool2d {
        /// Window size.
        kernel: u32,
        /// Stride.
        stride: u32,
        /// Padding.
        padding: u32,
    },
    /// `out += identity`: adds the second input into the first, in place.
    AddInplace,
    /// `nn.AdaptiveAvgPool2d((1, 1))`.
    AdaptiveAvgPool2d,
    /// `torch.flatten(x, 1)`: a view, no storage of its own.
    Flatten,
    /// `nn.Linear` with bias.
    Linear {
        /// Input features.
        in_features: u32,
        /// Output features.
        out_features: u32,
    },
}

/// Where a layer's input comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The model's input batch.
    Input,
    /// The output of the layer at this index in [`Model::layers`].
    Layer(usize),
}

/// Parameter or buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateKind {
    /// A trained parameter: it gets a gradient and optimizer state.
    Parameter,
    /// A buffer (BatchNorm running statistics): no gradient.
    Buffer,
}

/// A tensor owned by the model (a parameter or a buffer), always fp32 or
/// int64 whatever the activation dtype.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateTensor {
    /// Qualified name, as in `model.state_dict()`.
    pub name: String,
    /// Parameter or buffer.
    pub kind: StateKind,
    /// Number of elements.
    pub numel: u64,
    /// Bytes per element (4 for fp32, 8 for `num_batches_tracked`).
    pub elem_bytes: u64,
}

impl StateTensor {
    /// Bytes of the tensor.
    pub fn bytes(&self) -> u64 {
        self.numel * self.elem_bytes
    }
}

/// One layer of the graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layer {
    /// Module path, e.g. `layer2.0.conv2`.
    pub name: String,
    /// What it computes.
    pub op: LayerOp,
    /// Its inputs; [`LayerOp::AddInplace`] has two, every other op one.
    pub inputs: Vec<Source>,
    /// Per-sample shape of its output.
    pub out: Shape,
    /// Indices into [`Model::state`] of its parameters (weight, then bias).
    pub params: Vec<usize>,
}

/// A network: its layers in forward order and its state tensors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Model {
    /// Name written into trace metadata.
    pub name: String,
    /// Per-sample input shape.
    pub input: Shape,
    /// Layers in forward execution order; the last one produces the logits.
    pub layers: Vec<Layer>,
    /// Parameters and buffers in `model.to(device)` order.
    pub state: Vec<StateTensor>,
}

impl Model {
    /// Number of trained parameters (`sum(p.numel() for p in model.parameters())`).
    pub fn parameter_count(&self) -> u64 {
        let params = self.state.iter().filter(|t| t.kind == StateKind::Parameter);
        params.map(|t| t.numel).sum()
    }

    /// Bytes of parameters and buffers.
    pub fn state_bytes(&self) -> u64 {
        self.state.iter().map(StateTensor::bytes).sum()
    }

    /// Per-sample shape of what `source` produces.
    pub fn shape_of(&self, source: Source) -> Shape {
        match source {
            Source::Input => self.input,
            Source::Layer(i) => self.layers[i].out,
        }
    }
}

/// Builds the layer list in forward order.
struct Builder {
    model: Model,
}

impl Builder {
    fn push(&mut self, name: String, op: LayerOp, inputs: Vec<Source>, out: Shape) -> Source {
        self.model.layers.push(Layer {
            name,
            op,
            inputs,
            out,
            params: Vec::new(),
        });
        Source::Layer(self.model.layers.len() - 1)
    }

    fn state(&mut self, name: String, kind: StateKind, numel: u64, elem_bytes: u64) -> usize {
        self.model.state.push(StateTensor {
            name,
            kind,
            numel,
            elem_bytes,
        });
        self.model.state.len() - 1
    }

    fn conv(
        &mut self,
        name: &str,
        x: Source,
        out_channels: u32,
        kernel: u32,
        stride: u32,
    ) -> Source {
        let s = self.model.shape_of(x);
        let padding = kernel / 2;
        let h = (s.h + 2 * padding - kernel) / stride + 1;
        let w = (s.w + 2 * padding - kernel) / stride + 1;
        let op = LayerOp::Conv2d {
            in_channels: s.c,
            out_channels,
            kernel,
            stride,
            padding,
        };
        let out = self.push(name.to_owned(), op, vec![x], Shape::new(out_channels, h, w));
        let numel = u64::from(out_channels) * u64::from(s.c) * u64::from(kernel * kernel);
        let weight = self.state(format!("{name}.weight"), StateKind::Parameter, numel, 4);
        self.last().params.push(weight);
        out
    }

    fn bn(&mut self, name: &str, x: Source) -> Source {
        let s = self.model.shape_of(x);
        let op = LayerOp::BatchNorm2d { channels: s.c };
        let out = self.push(name.to_owned(), op, vec![x], s);
        let c = u64::from(s.c);
        let weight = self.state(format!("{name}.weight"), StateKind::Parameter, c, 4);
        let bias = self.state(format!("{name}.bias"), StateKind::Parameter, c, 4);
        self.last().params.extend([weight, bias]);
        self.state(format!("{name}.running_mean"), StateKind::Buffer, c, 4);
        self.state(format!("{name}.running_var"), StateKind::Buffer, c, 4);
        self.state(
            format!("{name}.num_batches_tracked"),
            StateKind::Buffer,
            1,
            8,
        );
        out
    }

    fn relu(&mut self, name: &str, x: Source) -> Source {
        let s = self.model.shape_of(x);
        self.push(name.to_owned(), LayerOp::ReluInplace, vec![x], s)
    }

    fn last(&mut self) -> &mut Layer {
        let last = self.model.layers.len() - 1;
        &mut self.model.layers[last]
    }

    /// One torchvision `Bottleneck`; returns its output.
    fn bottleneck(&mut self, name: &str, x: Source, width: u32, stride: u32) -> Source {
        let in_channels = self.model.shape_of(x).c;
        let out_channels = width * 4;
        let y = self.conv(&format!("{name}.conv1"), x, width, 1, 1);
        let y = self.bn(&format!("{name}.bn1"), y);
        let y = self.relu(&format!("{name}.relu1"), y);
        let y = self.conv(&format!("{name}.conv2"), y, width, 3, stride);
        let y = self.bn(&format!("{name}.bn2"), y);
        let y = self.relu(&format!("{name}.relu2"), y);
        let y = self.conv(&format!("{name}.conv3"), y, out_channels, 1, 1);
        let y = self.bn(&format!("{name}.bn3"), y);
        let identity = if stride != 1 || in_channels != out_channels {
            let d = self.conv(&format!("{name}.downsample.0"), x, out_channels, 1, stride);
            self.bn(&format!("{name}.downsample.1"), d)
        } else {
            x
        };
        let s = self.model.shape_of(y);
        let y = self.push(
            format!("{name}.add"),
            LayerOp::AddInplace,
            vec![y, identity],
            s,
        );
        self.relu(&format!("{name}.relu3"), y)
    }
}

/// Channels of the bottleneck stages and how many blocks each has.
pub const STAGES: [(u32, usize); 4] = [(64, 3), (128, 4), (256, 6), (512, 3)];

/// ResNet-50 for 3×224×224 inputs and 1000 classes.
pub fn resnet50() -> Model {
    let mut b = Builder {
        model: Model {
            name: "resnet50".to_owned(),
            input: Shape::new(3, 224, 224),
            layers: Vec::new(),
            state: Vec::new(),
        },
    };
    let x = b.conv("conv1", Source::Input, 64, 7, 2);
    let x = b.bn("bn1", x);
    let x = b.relu("relu", x);
    let s = b.model.shape_of(x);
    let (kernel, stride, padding) = (3, 2, 1);
    let pool = LayerOp::MaxPool2d {
        kernel,
        stride,
        padding,
    };
    let h = (s.h + 2 * padding - kernel) / stride + 1;
    let w = (s.w + 2 * padding - kernel) / stride + 1;
    let mut x = b.push("maxpool".to_owned(), pool, vec![x], Shape::new(s.c, h, w));
    for (stage, &(width, blocks)) in STAGES.iter().enumerate() {
        for block in 0..blocks {
            let stride = if stage > 0 && block == 0 { 2 } else { 1 };
            x = b.bottleneck(&format!("layer{}.{block}", stage + 1), x, width, stride);
        }
    }
    let c = b.model.shape_of(x).c;
    let pooled = Shape::new(c, 1, 1);
    let x = b.push(
        "avgpool".to_owned(),
        LayerOp::AdaptiveAvgPool2d,
        vec![x],
        pooled,
    );
    let x = b.push("flatten".to_owned(), LayerOp::Flatten, vec![x], pooled);
    let classes = 1000;
    let fc = LayerOp::Linear {
        in_features: c,
        out_features: classes,
    };
    b.push("fc".to_owned(), fc, vec![x], Shape::new(classes, 1, 1));
    let numel = u64::from(classes) * u64::from(c);
    let weight = b.state("fc.weight".to_owned(), StateKind::Parameter, numel, 4);
    let bias = b.state(
        "fc.bias".to_owned(),
        StateKind::Parameter,
        u64::from(classes),
        4,
    );
    b.last().params.extend([weight, bias]);
    b.model
}
