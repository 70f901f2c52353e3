//! Media type classification: which recorded responses are JSON-like (replay parses them, the
//! primary origin is the one with the most of them) and which are pages or static assets (the
//! manifest excludes groups that only ever answered those).

/// The media type's essence: lower-cased, parameters (`; charset=…`) and surrounding spaces removed.
pub fn essence(media_type: &str) -> String {
    media_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// Whether a recorded media type is JSON-like as replay reads it: `application/json`,
/// `application/*+json`, `text/plain` or `text/markdown` (parameters ignored).
pub fn is_json_like(media_type: Option<&str>) -> bool {
    let Some(media_type) = media_type else {
        return false;
    };
    let essence = essence(media_type);
    match essence.as_str() {
        "application/json" | "text/plain" | "text/markdown" => true,
        other => other
            .strip_prefix("application/")
            .is_some_and(|subtype| subtype.ends_with("+json")),
    }
}

/// Whether a recorded media type is a page or a static asset (HTML, style sheets, scripts,
/// images, fonts, audio, video, WebAssembly, source maps): responses an API tool does not give.
pub fn is_page_or_asset(media_type: Option<&str>) -> bool {
    let Some(media_type) = media_type else {
        return false;
    };
    let essence = essence(media_type);
    let (kind, subtype) = essence.split_once('/').unwrap_or((essence.as_str(), ""));
    match kind {
        "image" | "font" | "audio" | "video" => true,
        "text" => matches!(
            subtype,
            "html" | "css" | "javascript" | "ecmascript" | "x-javascript" | "jsx" | "vtt"
        ),
        "application" => matches!(
            subtype,
            "xhtml+xml"
                | "javascript"
                | "ecmascript"
                | "x-javascript"
                | "wasm"
                | "font-woff"
                | "font-woff2"
                | "x-font-woff"
                | "x-font-ttf"
                | "vnd.ms-fontobject"
                | "manifest+json"
        ),
        _ => false,
    }
}

/// Whether a path's last segment names a static file by its extension (`app.js`, `logo.svg`).
pub fn has_static_extension(path: &str) -> bool {
    let last = path.rsplit('/').next().unwrap_or("");
    let Some((_, extension)) = last.rsplit_once('.') else {
        return false;
    };
    matches!(
        extension.to_ascii_lowercase().as_str(),
        "js" | "mjs"
            | "cjs"
            | "css"
            | "map"
            | "html"
            | "htm"
            | "png"
            | "jpg"
            | "jpeg"
            | "gif"
            | "svg"
            | "ico"
            | "webp"
            | "avif"
            | "bmp"
            | "woff"
            | "woff2"
            | "ttf"
            | "otf"
            | "eot"
            | "mp3"
            | "mp4"
            | "webm"
            | "ogg"
            | "wav"
            | "wasm"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_like_types_follow_the_replay_list() {
        // contract: REPLAY-024
        for yes in [
            "application/json",
            "application/json; charset=utf-8",
            "Application/JSON",
            "application/problem+json",
            "text/plain",
            "text/markdown;charset=UTF-8",
        ] {
            assert!(is_json_like(Some(yes)), "{yes}");
        }
        for no in [
            "text/html",
            "application/xml",
            "application/jsonx",
            "",
            "json",
        ] {
            assert!(!is_json_like(Some(no)), "{no}");
        }
        assert!(!is_json_like(None));
    }

    #[test]
    fn pages_and_assets_are_recognised() {
        for yes in [
            "text/html; charset=utf-8",
            "text/css",
            "application/javascript",
            "image/png",
            "font/woff2",
        ] {
            assert!(is_page_or_asset(Some(yes)), "{yes}");
        }
        for no in ["application/json", "text/plain", "application/octet-stream"] {
            assert!(!is_page_or_asset(Some(no)), "{no}");
        }
        assert!(has_static_extension("/static/app.JS"));
        assert!(!has_static_extension("/recipes/default/tiddlers.json"));
        assert!(!has_static_extension("/api/users"));
    }
}
