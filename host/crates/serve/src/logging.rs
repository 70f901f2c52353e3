//! Logs as JSON lines on stderr: `{"level":"info","msg":"MCP transport listening","url":"…"}`.
//!
//! Each event is one line: `level`, `msg` (the event's message), then its fields by name. No
//! timestamp is written (the process supervisor adds its own). `REA_LOG_LEVEL` sets the level;
//! the MCP SDK's own events are kept at `warn` unless the level is `debug` or `trace`.

use std::io::Write;
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};
use tracing::field::{Field, Visit};
use tracing::{Event, Subscriber};
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

/// Where lines go.
pub type LogSink = Arc<Mutex<dyn Write + Send>>;

/// A layer writing each event as one JSON line.
pub struct JsonLines {
    sink: LogSink,
}

impl JsonLines {
    /// Lines to this sink.
    pub fn new(sink: LogSink) -> Self {
        Self { sink }
    }
}

struct Fields(Map<String, Value>);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.insert(field, Value::String(format!("{value:?}")));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.insert(field, Value::String(value.to_owned()));
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.insert(field, Value::from(value));
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.insert(field, Value::from(value));
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.insert(field, Value::from(value));
    }
}

impl Fields {
    fn insert(&mut self, field: &Field, value: Value) {
        let name = match field.name() {
            "message" => "msg",
            other => other,
        };
        self.0.insert(name.to_owned(), value);
    }
}

/// One event as its JSON line (without the newline).
pub fn line(event: &Event<'_>) -> String {
    let mut fields = Fields(Map::new());
    event.record(&mut fields);
    let mut out = Map::new();
    out.insert(
        "level".to_owned(),
        Value::String(event.metadata().level().as_str().to_ascii_lowercase()),
    );
    if let Some(msg) = fields.0.remove("msg") {
        out.insert("msg".to_owned(), msg);
    }
    out.extend(fields.0);
    Value::Object(out).to_string()
}

impl<S: Subscriber> Layer<S> for JsonLines {
    fn on_event(&self, event: &Event<'_>, _context: Context<'_, S>) {
        let mut text = line(event);
        text.push('\n');
        if let Ok(mut sink) = self.sink.lock() {
            let _ = sink.write_all(text.as_bytes());
            let _ = sink.flush();
        }
    }
}

/// The filter for a level: rea's events at `level`; the SDK's at `warn` at most unless `level`
/// is `debug` or `trace`.
pub fn filter(level: LevelFilter) -> Targets {
    let sdk = if level >= LevelFilter::DEBUG {
        level
    } else {
        level.min(LevelFilter::WARN)
    };
    Targets::new().with_default(level).with_target("rmcp", sdk)
}

/// A subscriber writing JSON lines at `level` to `sink`.
pub fn subscriber(level: LevelFilter, sink: LogSink) -> impl Subscriber + Send + Sync {
    tracing_subscriber::registry()
        .with(JsonLines::new(sink))
        .with(filter(level))
}

/// Installs the JSON-lines subscriber on stderr as the process's default; a second call (another
/// command in the same process, a test) leaves the first in place.
pub fn init(level: LevelFilter) {
    let sink: LogSink = Arc::new(Mutex::new(std::io::stderr()));
    let _ = tracing::subscriber::set_global_default(subscriber(level, sink));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);

    impl Write for Buffer {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().write(buf)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn capture(level: LevelFilter, emit: impl FnOnce()) -> String {
        let buffer = Buffer::default();
        let sink: LogSink = Arc::new(Mutex::new(buffer.clone()));
        tracing::subscriber::with_default(subscriber(level, sink), emit);
        String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap()
    }

    // contract: SERVE-007
    #[test]
    fn events_are_one_json_line_with_msg() {
        let text = capture(LevelFilter::INFO, || {
            tracing::info!(url = "http://127.0.0.1:1/mcp", "MCP transport listening");
        });
        assert_eq!(
            text,
            "{\"level\":\"info\",\"msg\":\"MCP transport listening\",\"url\":\"http://127.0.0.1:1/mcp\"}\n"
        );
    }

    // contract: SERVE-008
    #[test]
    fn the_level_filters_events() {
        let text = capture(LevelFilter::WARN, || {
            tracing::info!("hidden");
            tracing::warn!("shown");
        });
        assert_eq!(text, "{\"level\":\"warn\",\"msg\":\"shown\"}\n");
        let sdk = capture(LevelFilter::INFO, || {
            tracing::info!(target: "rmcp::service", "client initialized");
        });
        assert_eq!(sdk, "");
    }
}
