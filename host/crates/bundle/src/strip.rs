//! The bundle's `rea` without its debug information.
//!
//! A release `rea` keeps line tables (`debug = "line-tables-only"`) so its own backtraces stay
//! readable; those `.debug_*` sections are most of the file (124 MB of a release build) and a
//! served bundle never reads them. The bundle therefore carries the binary with every `.debug_*`
//! section removed: the code, data, symbol table (function names in a backtrace) and program
//! headers are kept as they are, so the copy runs exactly as the original does. The debug
//! information stays with the build the binary came from; it is never shipped.
//!
//! The ELF file is read and rewritten with the `object` crate's ELF builder (gimli-rs), the
//! well-kept reader and writer Rust's own toolchain uses. A file that is not ELF (a stand-in
//! script, a binary for another format) or has no debug sections is shipped unchanged.

/// A binary with its debug sections removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stripped {
    /// The rewritten file.
    pub bytes: Vec<u8>,
    /// The names of the sections removed, in file order.
    pub removed: Vec<String>,
}

/// Whether a section holds debug information a running binary never reads.
fn is_debug_section(name: &[u8]) -> bool {
    name.starts_with(b".debug_") || name.starts_with(b".zdebug_") || name == b".gdb_index"
}

/// The file without its debug sections, or `None` when it is not ELF or has none to remove.
///
/// An ELF file the builder cannot read or write back is an error naming why (the caller ships
/// nothing rather than a damaged binary).
pub fn strip_debug(bytes: &[u8]) -> Result<Option<Stripped>, String> {
    if !bytes.starts_with(b"\x7fELF") {
        return Ok(None);
    }
    let mut builder = object::build::elf::Builder::read(bytes)
        .map_err(|error| format!("the ELF file cannot be read: {error}"))?;
    let mut removed = Vec::new();
    for section in builder.sections.iter_mut() {
        if is_debug_section(section.name.as_slice()) {
            section.delete = true;
            removed.push(String::from_utf8_lossy(section.name.as_slice()).into_owned());
        }
    }
    if removed.is_empty() {
        return Ok(None);
    }
    builder.delete_orphans();
    let mut out = Vec::with_capacity(bytes.len() / 2);
    builder.write(&mut out).map_err(|error| {
        format!("the ELF file cannot be written without its debug sections: {error}")
    })?;
    Ok(Some(Stripped {
        bytes: out,
        removed,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_that_is_not_elf_is_shipped_as_it_is() {
        assert_eq!(strip_debug(b"#!/bin/sh\necho stand-in\n"), Ok(None));
        assert_eq!(strip_debug(b""), Ok(None));
    }

    #[test]
    fn a_truncated_elf_file_is_an_error() {
        let error = strip_debug(b"\x7fELF\x02\x01\x01").unwrap_err();
        assert!(error.starts_with("the ELF file cannot be read"), "{error}");
    }

    #[test]
    fn the_running_test_binary_loses_its_debug_sections_only() {
        // The test binary is built with line tables (the workspace's dev profile): it has
        // `.debug_line` and friends to remove.
        let path = std::env::current_exe().unwrap();
        let original = std::fs::read(&path).unwrap();
        let stripped = strip_debug(&original)
            .unwrap()
            .expect("debug sections to remove");
        assert!(stripped.removed.iter().any(|name| name == ".debug_line"));
        assert!(stripped.bytes.len() < original.len());
        let before = object::read::File::parse(&*original).unwrap();
        let after = object::read::File::parse(&*stripped.bytes).unwrap();
        use object::{Object, ObjectSection};
        let names = |file: &object::read::File| -> Vec<String> {
            file.sections()
                .filter_map(|section| section.name().ok().map(str::to_owned))
                .collect()
        };
        let kept: Vec<String> = names(&before)
            .into_iter()
            .filter(|name| !is_debug_section(name.as_bytes()))
            .collect();
        assert_eq!(names(&after), kept);
        let text = |file: &object::read::File| {
            file.section_by_name(".text")
                .map(|section| (section.address(), section.data().unwrap().to_vec()))
        };
        assert_eq!(text(&before), text(&after));
        assert_eq!(before.entry(), after.entry());
        // Deterministic: the same input gives the same bytes.
        assert_eq!(strip_debug(&original).unwrap().unwrap(), stripped);
    }
}
