//! The bundle's `rea` without its debug information and symbol table.
//!
//! A release `rea` keeps line tables (`debug = "line-tables-only"`) so its own backtraces stay
//! readable; those `.debug_*` sections are most of the file (124 MB of a release build) and a
//! served bundle never reads them. Its static symbol table (`.symtab`, with the names in
//! `.strtab`: every function's mangled name, about a fifth of what is left) is read by nothing
//! but debuggers and backtraces either. The bundle therefore carries the binary with every
//! `.debug_*` section and the static symbol table removed, as `strip` does: the code, data,
//! unwind tables (`.eh_frame`: plugin calls still catch panics), the dynamic symbol table
//! (`.dynsym`, what the loader and `dlopen`ed plugins resolve) and program headers are kept as
//! they are, so the copy runs exactly as the original does; a panic's backtrace in a bundle shows
//! addresses instead of names. The debug information and symbols stay with the build the binary
//! came from; they are never shipped.
//!
//! The ELF file is read and rewritten with the `object` crate's ELF builder (gimli-rs), the
//! well-kept reader and writer Rust's own toolchain uses. A file that is not ELF (a stand-in
//! script, a binary for another format) or has no debug sections is shipped unchanged.

/// A binary with its debug sections and static symbol table removed.
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

/// Whether a section is the static symbol table, its names or its extended indexes (never the
/// dynamic symbol table the loader reads).
fn is_symbol_table(data: &object::build::elf::SectionData<'_>) -> bool {
    use object::build::elf::SectionData;
    matches!(
        data,
        SectionData::Symbol | SectionData::String | SectionData::SymbolSectionIndex
    )
}

/// The file without its debug sections and static symbol table, or `None` when it is not ELF
/// or has neither to remove.
///
/// An ELF file the builder cannot read or write back is an error naming why (the caller ships
/// nothing rather than a damaged binary).
pub fn strip_binary(bytes: &[u8]) -> Result<Option<Stripped>, String> {
    if !bytes.starts_with(b"\x7fELF") {
        return Ok(None);
    }
    let mut builder = object::build::elf::Builder::read(bytes)
        .map_err(|error| format!("the ELF file cannot be read: {error}"))?;
    let mut removed = Vec::new();
    let mut symbol_table = false;
    for section in builder.sections.iter_mut() {
        let symbols = is_symbol_table(&section.data);
        if symbols || is_debug_section(section.name.as_slice()) {
            symbol_table |= symbols;
            section.delete = true;
            removed.push(String::from_utf8_lossy(section.name.as_slice()).into_owned());
        }
    }
    if removed.is_empty() {
        return Ok(None);
    }
    if symbol_table {
        for symbol in &mut builder.symbols {
            symbol.delete = true;
        }
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
        assert_eq!(strip_binary(b"#!/bin/sh\necho stand-in\n"), Ok(None));
        assert_eq!(strip_binary(b""), Ok(None));
    }

    #[test]
    fn a_truncated_elf_file_is_an_error() {
        let error = strip_binary(b"\x7fELF\x02\x01\x01").unwrap_err();
        assert!(error.starts_with("the ELF file cannot be read"), "{error}");
    }

    #[test]
    fn the_running_test_binary_loses_its_debug_sections_and_symbol_table_only() {
        // The test binary is built with line tables (the workspace's dev profile): it has
        // `.debug_line` and friends to remove, and a static symbol table.
        let path = std::env::current_exe().unwrap();
        let original = std::fs::read(&path).unwrap();
        let stripped = strip_binary(&original)
            .unwrap()
            .expect("debug sections to remove");
        assert!(stripped.removed.iter().any(|name| name == ".debug_line"));
        for table in [".symtab", ".strtab"] {
            assert!(stripped.removed.iter().any(|name| name == table), "{table}");
        }
        assert!(stripped.bytes.len() < original.len());
        let before = object::read::File::parse(&*original).unwrap();
        let after = object::read::File::parse(&*stripped.bytes).unwrap();
        use object::{Object, ObjectSection, ObjectSymbol};
        assert!(
            before.symbols().count() > 1000,
            "the build has a symbol table"
        );
        assert_eq!(after.symbols().count(), 0, "no static symbol is shipped");
        // The dynamic symbols the loader resolves are kept, name for name.
        let dynamic = |file: &object::read::File| -> Vec<String> {
            file.dynamic_symbols()
                .filter_map(|symbol| symbol.name().ok().map(str::to_owned))
                .collect()
        };
        assert_eq!(dynamic(&after), dynamic(&before));
        let names = |file: &object::read::File| -> Vec<String> {
            file.sections()
                .filter_map(|section| section.name().ok().map(str::to_owned))
                .collect()
        };
        let kept: Vec<String> = names(&before)
            .into_iter()
            .filter(|name| !is_debug_section(name.as_bytes()))
            .filter(|name| ![".symtab", ".strtab", ".symtab_shndx"].contains(&name.as_str()))
            .collect();
        assert_eq!(names(&after), kept);
        let text = |file: &object::read::File| {
            file.section_by_name(".text")
                .map(|section| (section.address(), section.data().unwrap().to_vec()))
        };
        assert_eq!(text(&before), text(&after));
        assert_eq!(before.entry(), after.entry());
        // Deterministic: the same input gives the same bytes.
        assert_eq!(strip_binary(&original).unwrap().unwrap(), stripped);
        // The stripped copy runs: its harness starts and lists this very test.
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("stripped");
        std::fs::write(&copy, &stripped.bytes).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o700)).unwrap();
        let listed = std::process::Command::new(&copy)
            .args(["--list", "strip::tests::the_running_test_binary"])
            .output()
            .unwrap();
        assert!(listed.status.success(), "{listed:?}");
        assert!(
            String::from_utf8_lossy(&listed.stdout)
                .contains("the_running_test_binary_loses_its_debug_sections_and_symbol_table_only"),
            "{listed:?}"
        );
    }
}
