//! Golden files: outputs produced by the code once, reviewed, then compared byte for byte.
//!
//! `REA_BLESS=1` rewrites them. An output larger than [`DIGEST_THRESHOLD`] is not committed whole
//! (large generated files stay out of the repository): its golden is a `<name>.sha256` file holding
//! the SHA-256 and length of the exact bytes, so the comparison is still byte for byte. On a
//! mismatch the actual output is written beside the golden as `<name>.actual` for review (ignored
//! by git).

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Outputs larger than this are kept as a digest golden.
pub const DIGEST_THRESHOLD: usize = 256 * 1024;

fn blessing() -> bool {
    std::env::var_os("REA_BLESS").is_some_and(|value| value == "1")
}

/// The file the golden for `golden` lives in for an output of `len` bytes: `golden` itself, or
/// `golden` with `.sha256` appended for a large output.
pub fn golden_file(golden: &Path, len: usize) -> PathBuf {
    if len > DIGEST_THRESHOLD {
        let mut name = golden.as_os_str().to_owned();
        name.push(".sha256");
        PathBuf::from(name)
    } else {
        golden.to_path_buf()
    }
}

fn digest_line(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    format!("sha256 {} bytes {}\n", hex::encode(digest), bytes.len())
}

/// Compares `actual` with the golden at `golden` (or its digest form); `REA_BLESS=1` writes it
/// instead. Returns the golden file used, or a description of the mismatch.
pub fn check(golden: &Path, actual: &[u8]) -> Result<PathBuf, String> {
    let file = golden_file(golden, actual.len());
    let expected_bytes: Vec<u8> = if file == golden {
        actual.to_vec()
    } else {
        digest_line(actual).into_bytes()
    };
    if blessing() {
        std::fs::create_dir_all(file.parent().expect("a golden has a folder"))
            .expect("golden folder created");
        std::fs::write(&file, &expected_bytes).expect("golden written");
        // A golden that changed form leaves no stale twin behind.
        let other = if file == golden {
            golden_file(golden, usize::MAX)
        } else {
            golden.to_path_buf()
        };
        let _ = std::fs::remove_file(other);
        return Ok(file);
    }
    let expected = std::fs::read(&file).map_err(|error| {
        format!(
            "{}: {error} (run with REA_BLESS=1 to create it)",
            file.display()
        )
    })?;
    if expected == expected_bytes {
        return Ok(file);
    }
    let mut actual_name = golden.as_os_str().to_owned();
    actual_name.push(".actual");
    let actual_path = PathBuf::from(actual_name);
    let _ = std::fs::write(&actual_path, actual);
    let at = expected
        .iter()
        .zip(&expected_bytes)
        .position(|(a, b)| a != b)
        .unwrap_or(expected.len().min(expected_bytes.len()));
    let window = |bytes: &[u8]| {
        String::from_utf8_lossy(
            &bytes[at.saturating_sub(80).min(bytes.len())..(at + 80).min(bytes.len())],
        )
        .into_owned()
    };
    Err(format!(
        "{} differs at byte {at} (actual output in {}; REA_BLESS=1 rewrites the golden):\n expected …{}…\n actual   …{}…",
        file.display(),
        actual_path.display(),
        window(&expected),
        window(&expected_bytes)
    ))
}
