//! Data-plane calls on a state served in-process (`state_data_plane`, `security_data_plane`).

use rea_serve::{DataCall, RpcError, ShutdownToken as CancellationToken};
use serde_json::Value;

use super::Served;

/// A data-plane call expecting a reply.
pub fn call(method: &str, params: Option<Value>) -> DataCall {
    DataCall {
        method: method.to_owned(),
        params,
        params_raw: None,
        expects_reply: true,
        cancel: CancellationToken::new(),
    }
}

/// A two-thread runtime for driving the data plane.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

/// Runs one data-plane method on the served state.
pub fn run(served: &Served, method: &str, params: Option<Value>) -> Result<Value, RpcError> {
    runtime().block_on(served.plane.run(call(method, params)))
}
