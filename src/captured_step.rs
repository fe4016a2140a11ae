//! A training step captured into a graph, as the examples' `--graph` modes
//! replay it: the graph, the pinned host buffers a replay reads the batch
//! from, and the one it writes the loss into.

use ascendcl::Stream;
use ascendcl::graph::{Graph, HostInput, HostOutput};

/// A captured step (see `mlp::graph_step::capture`,
/// `resnet::graph_step::capture`).
#[derive(Debug)]
pub struct CapturedStep<'g> {
    graph: Graph<'g>,
    x: HostInput<f32>,
    labels: HostInput<i64>,
    loss: HostOutput<f32>,
}

impl<'g> CapturedStep<'g> {
    /// `graph` uploads its batch from `x` and `labels` and downloads its
    /// loss (one f32) into `loss`.
    pub fn new(
        graph: Graph<'g>,
        x: HostInput<f32>,
        labels: HostInput<i64>,
        loss: HostOutput<f32>,
    ) -> CapturedStep<'g> {
        CapturedStep {
            graph,
            x,
            labels,
            loss,
        }
    }

    /// The graph.
    pub fn graph(&self) -> &Graph<'g> {
        &self.graph
    }

    /// Queues one replay on `stream` for one batch: writes it into the
    /// graph's pinned inputs (which waits for the replays that still read
    /// them), then one `aclmdlRIExecuteAsync`.
    pub fn submit(&mut self, stream: &Stream, x: &[f32], labels: &[i64]) -> ascendcl::Result<()> {
        self.graph.host_input_mut(&self.x)?.copy_from_slice(x);
        self.graph
            .host_input_mut(&self.labels)?
            .copy_from_slice(labels);
        self.graph.launch(stream)?.detach();
        Ok(())
    }

    /// The loss of the last replay (waits for it).
    pub fn loss(&self) -> ascendcl::Result<f32> {
        Ok(self.graph.host_output(&self.loss)?[0])
    }

    /// [`submit`](Self::submit), then [`loss`](Self::loss).
    pub fn step(&mut self, stream: &Stream, x: &[f32], labels: &[i64]) -> ascendcl::Result<f32> {
        self.submit(stream, x, labels)?;
        self.loss()
    }
}
