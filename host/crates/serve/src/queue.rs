//! The data-plane call queue: calls run one at a time, in arrival order across requests, and a
//! batch is queued as one unit.
//!
//! One worker task takes calls off an unbounded channel. A request's calls (every message of a
//! batch) are sent as one item, so no other request's call lands between them, and each sees the
//! changes of those before it. Each call carries a cancellation token: the server's stop cancels
//! every token, and a caller that leaves before its reply cancels its own batch's. A call whose
//! token is cancelled before it starts is answered [`RpcError::cancelled`] without running; one
//! that is running has its future dropped (a download ends) and is answered the same way. Each call
//! runs in its own task, so a panicking data plane answers `-32603` for that call and the queue
//! goes on.

use std::sync::Arc;

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use crate::backend::{DataCall, DataPlane, RpcError};

/// A call's reply channel.
pub type ReplyReceiver = oneshot::Receiver<Result<Value, RpcError>>;

/// One queued call.
#[derive(Debug)]
pub struct QueuedCall {
    call: DataCall,
    reply: Option<oneshot::Sender<Result<Value, RpcError>>>,
}

impl QueuedCall {
    /// A call whose result is sent back; returns the call and its reply receiver.
    pub fn request(call: DataCall) -> (Self, ReplyReceiver) {
        let (sender, receiver) = oneshot::channel();
        (
            Self {
                call,
                reply: Some(sender),
            },
            receiver,
        )
    }

    /// A call whose result is dropped (a notification).
    pub fn notification(call: DataCall) -> Self {
        Self { call, reply: None }
    }
}

/// The sending side of the queue; cheap to clone.
#[derive(Debug, Clone)]
pub struct CallQueue {
    sender: mpsc::UnboundedSender<Vec<QueuedCall>>,
}

impl CallQueue {
    /// Starts the worker (on the current tokio runtime) over a data plane. The worker ends when
    /// every queue handle is dropped.
    pub fn start(plane: Arc<dyn DataPlane>) -> Self {
        let (sender, receiver) = mpsc::unbounded_channel();
        tokio::spawn(work(plane, receiver));
        Self { sender }
    }

    /// Queues the calls of one request as one unit, behind every call queued before.
    pub fn submit(&self, calls: Vec<QueuedCall>) {
        if calls.is_empty() {
            return;
        }
        if let Err(mpsc::error::SendError(calls)) = self.sender.send(calls) {
            // The worker is gone (the runtime is shutting down): nothing will run.
            for call in calls {
                if let Some(reply) = call.reply {
                    let _ = reply.send(Err(RpcError::cancelled()));
                }
            }
        }
    }
}

async fn work(plane: Arc<dyn DataPlane>, mut receiver: mpsc::UnboundedReceiver<Vec<QueuedCall>>) {
    while let Some(batch) = receiver.recv().await {
        for QueuedCall { call, reply } in batch {
            let result = run_one(&plane, call).await;
            if let Some(reply) = reply {
                let _ = reply.send(result);
            }
        }
    }
}

async fn run_one(plane: &Arc<dyn DataPlane>, call: DataCall) -> Result<Value, RpcError> {
    let cancel = call.cancel.clone();
    if cancel.is_cancelled() {
        return Err(RpcError::cancelled());
    }
    let plane = Arc::clone(plane);
    let mut task = tokio::spawn(async move { plane.handle(call).await });
    tokio::select! {
        biased;
        joined = &mut task => match joined {
            Ok(result) => result,
            Err(error) if error.is_cancelled() => Err(RpcError::cancelled()),
            Err(_) => {
                tracing::error!("a data-plane call panicked");
                Err(RpcError::new(-32603, "internal error: the data-plane call failed"))
            }
        },
        () = cancel.cancelled() => {
            task.abort();
            Err(RpcError::cancelled())
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::time::Duration;

    use tokio_util::sync::CancellationToken;

    use super::*;
    use crate::backend::BoxFuture;

    /// Appends each call's method to a log; `slow` waits until cancelled or 10 s.
    struct Recorder {
        log: Mutex<Vec<String>>,
    }

    impl DataPlane for Recorder {
        fn handle(&self, call: DataCall) -> BoxFuture<'_, Result<Value, RpcError>> {
            Box::pin(async move {
                if call.method == "slow" {
                    tokio::time::sleep(Duration::from_secs(10)).await;
                }
                if call.method == "panic" {
                    panic!("boom");
                }
                let mut log = self.log.lock().unwrap();
                log.push(call.method.clone());
                Ok(Value::from(log.len()))
            })
        }
        fn state_report(&self) -> Value {
            Value::Null
        }
    }

    fn call(method: &str, cancel: &CancellationToken) -> DataCall {
        DataCall {
            method: method.to_owned(),
            params: None,
            params_raw: None,
            expects_reply: true,
            cancel: cancel.clone(),
        }
    }

    // contract: DATA-005, DATA-006, DATA-007
    #[tokio::test]
    async fn batches_run_whole_in_arrival_order() {
        let plane = Arc::new(Recorder {
            log: Mutex::new(Vec::new()),
        });
        let queue = CallQueue::start(plane.clone());
        let token = CancellationToken::new();
        let mut receivers = Vec::new();
        for request in 0..20 {
            let calls: Vec<QueuedCall> = (0..3)
                .map(|message| {
                    let (queued, receiver) =
                        QueuedCall::request(call(&format!("{request}.{message}"), &token));
                    receivers.push(receiver);
                    queued
                })
                .collect();
            queue.submit(calls);
        }
        for (position, receiver) in receivers.into_iter().enumerate() {
            assert_eq!(receiver.await.unwrap(), Ok(Value::from(position + 1)));
        }
        let log = plane.log.lock().unwrap().clone();
        let expected: Vec<String> = (0..20)
            .flat_map(|r| (0..3).map(move |m| format!("{r}.{m}")))
            .collect();
        assert_eq!(log, expected);
    }

    // contract: DATA-039, DATA-040, DATA-042, DATA-043
    #[tokio::test]
    async fn cancelled_calls_are_answered_without_running() {
        let plane = Arc::new(Recorder {
            log: Mutex::new(Vec::new()),
        });
        let queue = CallQueue::start(plane.clone());
        let leaving = CancellationToken::new();
        let staying = CancellationToken::new();
        let (slow, slow_reply) = QueuedCall::request(call("slow", &leaving));
        let (after, after_reply) = QueuedCall::request(call("after", &leaving));
        let (other, other_reply) = QueuedCall::request(call("other", &staying));
        queue.submit(vec![slow, after]);
        queue.submit(vec![other]);
        tokio::time::sleep(Duration::from_millis(50)).await;
        leaving.cancel();
        assert_eq!(slow_reply.await.unwrap(), Err(RpcError::cancelled()));
        assert_eq!(after_reply.await.unwrap(), Err(RpcError::cancelled()));
        assert_eq!(other_reply.await.unwrap(), Ok(Value::from(1)));
        assert_eq!(plane.log.lock().unwrap().clone(), vec!["other".to_owned()]);
    }

    #[tokio::test]
    async fn a_panicking_call_fails_alone() {
        let plane = Arc::new(Recorder {
            log: Mutex::new(Vec::new()),
        });
        let queue = CallQueue::start(plane.clone());
        let token = CancellationToken::new();
        let (bad, bad_reply) = QueuedCall::request(call("panic", &token));
        let (good, good_reply) = QueuedCall::request(call("good", &token));
        queue.submit(vec![bad, good]);
        assert_eq!(bad_reply.await.unwrap().unwrap_err().code, -32603);
        assert_eq!(good_reply.await.unwrap(), Ok(Value::from(1)));
    }
}
