//! The bundle's `rea` without its debug information and symbol table, streamed from the file.
//!
//! A release `rea` keeps line tables (`debug = "line-tables-only"`) so its own backtraces stay
//! readable; those `.debug_*` sections are most of the file (124 MB of a release build) and a
//! served bundle never reads them. Its static symbol table (`.symtab`, with the names in
//! `.strtab`: every function's mangled name, about a fifth of what is left) is read by nothing
//! but debuggers and backtraces either. The bundle therefore carries the binary without the
//! `.debug_*` sections and the static symbol table, as `strip` does: everything the loader maps
//! (the bytes every program header covers, among them the code, data, unwind tables
//! (`.eh_frame`: plugin calls still catch panics) and the dynamic symbol table (`.dynsym`, what
//! the loader and `dlopen`ed plugins resolve)) is copied byte for byte at its offset, so the
//! copy runs exactly as the original does; a panic's backtrace in a bundle shows addresses
//! instead of names. A `.debug_*` section the loader maps (`.debug_gdb_scripts`, a few bytes
//! naming gdb's pretty-printers) stays, being part of the image. The debug information and
//! symbols stay with the build the binary came from; they are never shipped.
//!
//! The file is never held in memory: [`plan_strip`] reads its headers alone (with the `object`
//! crate's ELF reader over a read cache, the well-kept reader Rust's own toolchain uses) and
//! plans the stripped file as pieces (the mapped prefix, each kept section after it, the
//! rebuilt section names and headers); [`StripPlan::write_to`] copies them from the source with
//! a bounded buffer, once to hash the result when the bundle is planned and again into the
//! bundle. The same file gives the same bytes. A file that is not ELF (a stand-in script, a
//! binary for another format) or has nothing to remove is shipped unchanged.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};

use object::read::ReadCache;
use object::read::elf::{FileHeader, ProgramHeader, SectionHeader};
use object::{Endianness, elf, pod};

/// The buffer a plan copies through.
const COPY_BUFFER_BYTES: usize = 64 * 1024;

/// One piece of the stripped file, in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    /// These bytes (the patched file header, the section names and headers).
    Bytes(Vec<u8>),
    /// `len` bytes of the source from `offset`.
    Copy { offset: u64, len: u64 },
    /// Zero padding up to an alignment.
    Zeros(u64),
}

/// How to write a binary without its debug sections and static symbol table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StripPlan {
    pieces: Vec<Piece>,
    /// The names of the sections removed, in section order.
    removed: Vec<String>,
}

impl StripPlan {
    /// The names of the sections removed, in section order.
    pub fn removed(&self) -> &[String] {
        &self.removed
    }

    /// The stripped file's size in bytes.
    pub fn len(&self) -> u64 {
        self.pieces
            .iter()
            .map(|piece| match piece {
                Piece::Bytes(bytes) => bytes.len() as u64,
                Piece::Copy { len, .. } | Piece::Zeros(len) => *len,
            })
            .sum()
    }

    /// Whether the stripped file is empty (never, for a plan [`plan_strip`] made).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes the stripped file to `sink`, copying from `source` (the file the plan was made
    /// from) through a bounded buffer; `between` runs between copied chunks and stops the copy
    /// when it returns an error.
    pub fn write_to(
        &self,
        source: &mut File,
        sink: &mut dyn Write,
        between: &mut dyn FnMut() -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let mut buffer = vec![0u8; COPY_BUFFER_BYTES];
        for piece in &self.pieces {
            match piece {
                Piece::Bytes(bytes) => sink.write_all(bytes)?,
                Piece::Zeros(len) => {
                    buffer.fill(0);
                    write_chunks(*len, &mut buffer, sink, &mut |_| Ok(()))?;
                }
                Piece::Copy { offset, len } => {
                    source.seek(SeekFrom::Start(*offset))?;
                    write_chunks(*len, &mut buffer, sink, &mut |chunk| {
                        between()?;
                        source.read_exact(chunk)
                    })?;
                }
            }
        }
        Ok(())
    }
}

/// Writes `len` bytes in buffer-sized chunks, each filled by `fill` first.
fn write_chunks(
    len: u64,
    buffer: &mut [u8],
    sink: &mut dyn Write,
    fill: &mut dyn FnMut(&mut [u8]) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut left = len;
    while left > 0 {
        let take = usize::try_from(left).map_or(buffer.len(), |left| left.min(buffer.len()));
        fill(&mut buffer[..take])?;
        sink.write_all(&buffer[..take])?;
        left -= take as u64;
    }
    Ok(())
}

/// Whether a section holds debug information a running binary never reads.
fn is_debug_section(name: &[u8]) -> bool {
    name.starts_with(b".debug_") || name.starts_with(b".zdebug_") || name == b".gdb_index"
}

/// A section header as the plan reads and rewrites it.
#[derive(Debug, Clone)]
struct Section {
    name: Vec<u8>,
    sh_type: elf::SectionType,
    sh_flags: elf::SectionFlags,
    sh_addr: u64,
    sh_offset: u64,
    sh_size: u64,
    sh_link: u32,
    sh_info: u32,
    sh_addralign: u64,
    sh_entsize: u64,
}

impl Section {
    fn is_alloc(&self) -> bool {
        self.sh_flags.contains(elf::SHF_ALLOC)
    }

    /// Whether the section has bytes in the file.
    fn has_bytes(&self) -> bool {
        self.sh_type != elf::SHT_NOBITS && self.sh_type != elf::SHT_NULL
    }

    /// The sections `sh_info` names (relocations, and any section flagged `SHF_INFO_LINK`).
    fn info_section(&self) -> Option<u32> {
        let links = self.sh_flags.contains(elf::SHF_INFO_LINK)
            || matches!(self.sh_type, elf::SHT_REL | elf::SHT_RELA);
        (links && self.sh_info != 0).then_some(self.sh_info)
    }

    fn shown(&self) -> String {
        String::from_utf8_lossy(&self.name).into_owned()
    }
}

/// What the plan needs of an ELF file: read from its headers alone.
struct Layout {
    is_64: bool,
    endian: Endianness,
    /// The file header's bytes.
    header: Vec<u8>,
    /// The section headers, the null section first.
    sections: Vec<Section>,
    /// The index of the section names' table.
    names_index: usize,
    /// Where the bytes the loader maps end: every program header's bytes, every allocated
    /// section's, the file and program headers; everything before is copied as it is.
    mapped_end: u64,
}

/// Plans the file `source` without its debug sections and static symbol table, or `None` when
/// it is not ELF or has neither to remove.
///
/// An ELF file whose headers cannot be read, or laid out so that removing sections would change
/// what the loader sees, is an error naming why (the caller ships nothing rather than a damaged
/// binary).
pub fn plan_strip(source: &mut File) -> Result<Option<StripPlan>, String> {
    let mut ident = Vec::with_capacity(5);
    source
        .seek(SeekFrom::Start(0))
        .and_then(|_| (&mut *source).take(5).read_to_end(&mut ident))
        .map_err(|error| format!("the file cannot be read: {error}"))?;
    if !ident.starts_with(b"\x7fELF") {
        return Ok(None);
    }
    let cache = ReadCache::new(&mut *source);
    let layout = match ident.get(4).copied().map(elf::FileClass) {
        Some(elf::ELFCLASS64) => read_layout::<elf::FileHeader64<Endianness>>(&cache),
        Some(elf::ELFCLASS32) => read_layout::<elf::FileHeader32<Endianness>>(&cache),
        _ => Err("the ELF class is neither 32 nor 64 bits".to_owned()),
    }
    .map_err(|error| format!("the ELF file cannot be read: {error}"))?;
    plan(&layout)
}

fn read_layout<Elf: FileHeader<Endian = Endianness>>(
    data: &ReadCache<&mut File>,
) -> Result<Layout, String> {
    read_headers::<Elf>(data).map_err(|error| error.to_string())?
}

/// The layout, or the reason the file is refused; an error of the reader itself.
fn read_headers<Elf: FileHeader<Endian = Endianness>>(
    data: &ReadCache<&mut File>,
) -> object::read::Result<Result<Layout, String>> {
    let header = Elf::parse(data)?;
    let endian = header.endian()?;
    let header_len = std::mem::size_of::<Elf>() as u64;
    let table = header.sections(endian, data)?;
    let mut mapped_end = header_len;
    let phoff: u64 = header.e_phoff(endian).into();
    let programs = header.program_headers(endian, data)?;
    let programs_len = u64::from(header.e_phentsize(endian)) * programs.len() as u64;
    mapped_end = mapped_end.max(phoff.saturating_add(programs_len));
    for program in programs {
        let offset: u64 = program.p_offset(endian).into();
        let size: u64 = program.p_filesz(endian).into();
        mapped_end = mapped_end.max(offset.saturating_add(size));
    }
    let mut sections = Vec::with_capacity(table.len());
    for section in table.iter() {
        let read = Section {
            name: table.section_name(endian, section)?.to_vec(),
            sh_type: section.sh_type(endian),
            sh_flags: section.sh_flags(endian),
            sh_addr: section.sh_addr(endian).into(),
            sh_offset: section.sh_offset(endian).into(),
            sh_size: section.sh_size(endian).into(),
            sh_link: section.sh_link(endian),
            sh_info: section.sh_info(endian),
            sh_addralign: section.sh_addralign(endian).into(),
            sh_entsize: section.sh_entsize(endian).into(),
        };
        if read.is_alloc() && read.has_bytes() {
            mapped_end = mapped_end.max(read.sh_offset.saturating_add(read.sh_size));
        }
        sections.push(read);
    }
    if header.e_shnum(endian) == 0 && !sections.is_empty()
        || header.e_shstrndx(endian) == elf::SHN_XINDEX
    {
        return Ok(Err("extended section numbering is not supported".to_owned()));
    }
    let names_index = if sections.is_empty() {
        0
    } else {
        header.section_strings_index(endian, data)?.0
    };
    let header = pod::bytes_of(header).to_vec();
    Ok(Ok(Layout {
        is_64: Elf::is_type_64_sized(),
        endian,
        header,
        sections,
        names_index,
        mapped_end,
    }))
}

/// Which sections go: the non-allocated debug sections, the static symbol table with its
/// extended indexes and names, and what links to them (relocations against static symbols, read
/// by linkers only). An allocated section always stays: the loader maps its bytes.
fn removed_sections(layout: &Layout) -> Vec<bool> {
    let sections = &layout.sections;
    let mut removed: Vec<bool> = sections
        .iter()
        .enumerate()
        .map(|(index, section)| {
            index != 0
                && !section.is_alloc()
                && (is_debug_section(&section.name)
                    || matches!(section.sh_type, elf::SHT_SYMTAB | elf::SHT_SYMTAB_SHNDX))
        })
        .collect();
    for (index, section) in sections.iter().enumerate() {
        if removed[index] && section.sh_type == elf::SHT_SYMTAB {
            let names = section.sh_link as usize;
            if names != layout.names_index
                && sections
                    .get(names)
                    .is_some_and(|names| names.sh_type == elf::SHT_STRTAB && !names.is_alloc())
            {
                removed[names] = true;
            }
        }
    }
    for (index, section) in sections.iter().enumerate() {
        let linked = |link: u32| removed.get(link as usize).copied().unwrap_or(false);
        if !section.is_alloc()
            && matches!(section.sh_type, elf::SHT_REL | elf::SHT_RELA)
            && (linked(section.sh_link) || section.info_section().is_some_and(linked))
        {
            removed[index] = true;
        }
    }
    removed
}

/// The new index of each kept section; an error when a kept section names a removed one, or an
/// allocated section would move (the dynamic symbols name sections by index).
fn kept_indexes(layout: &Layout, removed: &[bool]) -> Result<Vec<u32>, String> {
    let mut indexes = Vec::with_capacity(removed.len());
    let mut next = 0u32;
    for (index, section) in layout.sections.iter().enumerate() {
        indexes.push(next);
        if removed[index] {
            continue;
        }
        if section.is_alloc() && next as usize != index {
            return Err(format!(
                "the allocated section `{}` follows a removed section and would change its index",
                section.shown()
            ));
        }
        for link in [Some(section.sh_link), section.info_section()]
            .into_iter()
            .flatten()
        {
            if removed.get(link as usize).copied().unwrap_or(false) {
                return Err(format!(
                    "the section `{}` refers to the removed section `{}`",
                    section.shown(),
                    layout.sections[link as usize].shown()
                ));
            }
        }
        next += 1;
    }
    if next >= u32::from(elf::SHN_LORESERVE) {
        return Err("too many sections for a plain section count".to_owned());
    }
    Ok(indexes)
}

fn align(offset: u64, alignment: u64) -> u64 {
    offset.next_multiple_of(alignment.max(1))
}

/// The kept sections, each with its index in `layout`, the offset of its name in the rebuilt
/// names table, and its header with `sh_link`/`sh_info` renumbered; and that names table.
fn kept_sections(
    layout: &Layout,
    removed: &[bool],
    indexes: &[u32],
) -> (Vec<u8>, Vec<(usize, usize, Section)>) {
    let mut names = vec![0u8];
    let mut kept = Vec::new();
    for (index, section) in layout.sections.iter().enumerate() {
        if removed[index] {
            continue;
        }
        let mut out = section.clone();
        out.sh_link = indexes.get(section.sh_link as usize).copied().unwrap_or(0);
        if let Some(info) = section.info_section() {
            out.sh_info = indexes.get(info as usize).copied().unwrap_or(0);
        }
        let name = if section.name.is_empty() {
            0
        } else {
            names.len()
        };
        names.extend_from_slice(&section.name);
        if !section.name.is_empty() {
            names.push(0);
        }
        kept.push((index, name, out));
    }
    (names, kept)
}

/// The plan: the mapped prefix as it is (with the new file header), then each kept section that
/// lies after it, aligned as it was, then the rebuilt section names and section headers.
fn plan(layout: &Layout) -> Result<Option<StripPlan>, String> {
    let removed = removed_sections(layout);
    if !removed.contains(&true) {
        return Ok(None);
    }
    let indexes = kept_indexes(layout, &removed)?;
    let header_len = layout.header.len() as u64;
    let mut pieces = vec![
        Piece::Bytes(Vec::new()),
        Piece::Copy {
            offset: header_len,
            len: layout.mapped_end - header_len,
        },
    ];
    let mut position = layout.mapped_end;
    let (names, mut kept) = kept_sections(layout, &removed, &indexes);
    for (index, _, out) in &mut kept {
        let section = &layout.sections[*index];
        if *index == layout.names_index {
            out.sh_offset = position;
            out.sh_size = names.len() as u64;
            pieces.push(Piece::Bytes(names.clone()));
            position += out.sh_size;
        } else if !section.has_bytes() {
            if section.sh_offset >= layout.mapped_end {
                out.sh_offset = position;
            }
        } else if section.sh_offset.saturating_add(section.sh_size) <= layout.mapped_end {
            // Inside the mapped prefix: copied there, at its offset.
        } else if section.sh_offset < layout.mapped_end {
            return Err(format!(
                "the section `{}` straddles the end of the mapped bytes",
                section.shown()
            ));
        } else {
            let aligned = align(position, section.sh_addralign);
            pieces.push(Piece::Zeros(aligned - position));
            pieces.push(Piece::Copy {
                offset: section.sh_offset,
                len: section.sh_size,
            });
            out.sh_offset = aligned;
            position = aligned + section.sh_size;
        }
    }
    let table = align(position, if layout.is_64 { 8 } else { 4 });
    pieces.push(Piece::Zeros(table - position));
    let mut headers = Vec::new();
    for (_, name, out) in &kept {
        let name = u32::try_from(*name).map_err(|_| "too many section names".to_owned())?;
        headers.extend(section_header(layout, name, out)?);
    }
    pieces.push(Piece::Bytes(headers));
    let names_index = indexes[layout.names_index];
    pieces[0] = Piece::Bytes(file_header(layout, table, kept.len(), names_index)?);
    let removed = layout
        .sections
        .iter()
        .zip(&removed)
        .filter(|(_, removed)| **removed)
        .map(|(section, _)| section.shown())
        .collect();
    Ok(Some(StripPlan { pieces, removed }))
}

/// The file header with the new section header table's offset, count and names' index.
fn file_header(
    layout: &Layout,
    table: u64,
    count: usize,
    names_index: u32,
) -> Result<Vec<u8>, String> {
    let endian = layout.endian;
    let count = u16::try_from(count).map_err(|_| "too many sections".to_owned())?;
    let names_index =
        u16::try_from(names_index).map_err(|_| "the section names' index is too large")?;
    let unreadable = |()| "the ELF file header cannot be read".to_owned();
    if layout.is_64 {
        let (header, _) =
            pod::from_bytes::<elf::FileHeader64<Endianness>>(&layout.header).map_err(unreadable)?;
        let mut header = *header;
        header.e_shoff.set(endian, table);
        header.e_shnum.set(endian, count);
        header
            .e_shstrndx
            .set(endian, elf::SymbolSection(names_index));
        Ok(pod::bytes_of(&header).to_vec())
    } else {
        let (header, _) =
            pod::from_bytes::<elf::FileHeader32<Endianness>>(&layout.header).map_err(unreadable)?;
        let mut header = *header;
        header.e_shoff.set(endian, narrow(table)?);
        header.e_shnum.set(endian, count);
        header
            .e_shstrndx
            .set(endian, elf::SymbolSection(names_index));
        Ok(pod::bytes_of(&header).to_vec())
    }
}

fn narrow(value: u64) -> Result<u32, String> {
    u32::try_from(value).map_err(|_| format!("{value} does not fit a 32-bit ELF file"))
}

/// A section header's bytes, named at `name` in the new section names.
fn section_header(layout: &Layout, name: u32, section: &Section) -> Result<Vec<u8>, String> {
    use object::{U32, U64};
    let endian = layout.endian;
    if layout.is_64 {
        let header = elf::SectionHeader64 {
            sh_name: U32::new(endian, name),
            sh_type: U32::new(endian, section.sh_type),
            sh_flags: U64::new(endian, section.sh_flags),
            sh_addr: U64::new(endian, section.sh_addr),
            sh_offset: U64::new(endian, section.sh_offset),
            sh_size: U64::new(endian, section.sh_size),
            sh_link: U32::new(endian, section.sh_link),
            sh_info: U32::new(endian, section.sh_info),
            sh_addralign: U64::new(endian, section.sh_addralign),
            sh_entsize: U64::new(endian, section.sh_entsize),
        };
        Ok(pod::bytes_of(&header).to_vec())
    } else {
        let header = elf::SectionHeader32 {
            sh_name: U32::new(endian, name),
            sh_type: U32::new(endian, section.sh_type),
            sh_flags: U32::new_u64(endian, section.sh_flags)
                .map_err(|_| "the section flags do not fit a 32-bit ELF file".to_owned())?,
            sh_addr: U32::new(endian, narrow(section.sh_addr)?),
            sh_offset: U32::new(endian, narrow(section.sh_offset)?),
            sh_size: U32::new(endian, narrow(section.sh_size)?),
            sh_link: U32::new(endian, section.sh_link),
            sh_info: U32::new(endian, section.sh_info),
            sh_addralign: U32::new(endian, narrow(section.sh_addralign)?),
            sh_entsize: U32::new(endian, narrow(section.sh_entsize)?),
        };
        Ok(pod::bytes_of(&header).to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use object::{Object, ObjectSection, ObjectSymbol};

    /// The plan of `path` and the bytes it writes.
    fn strip_file(path: &std::path::Path) -> Result<Option<(StripPlan, Vec<u8>)>, String> {
        let mut file = File::open(path).unwrap();
        let Some(plan) = plan_strip(&mut file)? else {
            return Ok(None);
        };
        let mut out = Vec::new();
        plan.write_to(&mut file, &mut out, &mut || Ok(())).unwrap();
        assert_eq!(out.len() as u64, plan.len());
        Ok(Some((plan, out)))
    }

    fn strip_bytes(bytes: &[u8]) -> Result<Option<(StripPlan, Vec<u8>)>, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("file");
        std::fs::write(&path, bytes).unwrap();
        strip_file(&path)
    }

    #[test]
    fn a_file_that_is_not_elf_is_shipped_as_it_is() {
        assert_eq!(strip_bytes(b"#!/bin/sh\necho stand-in\n"), Ok(None));
        assert_eq!(strip_bytes(b""), Ok(None));
    }

    #[test]
    fn a_truncated_elf_file_is_an_error() {
        let error = strip_bytes(b"\x7fELF\x02\x01\x01").unwrap_err();
        assert!(error.starts_with("the ELF file cannot be read"), "{error}");
    }

    fn section_names(file: &object::read::File, keep: impl Fn(&[u8], bool) -> bool) -> Vec<String> {
        file.sections()
            .filter(|section| {
                let object::SectionFlags::Elf { sh_flags, .. } = section.flags() else {
                    return true;
                };
                let name = section.name().unwrap_or_default();
                keep(name.as_bytes(), sh_flags.contains(elf::SHF_ALLOC))
            })
            .filter_map(|section| section.name().ok().map(str::to_owned))
            .collect()
    }

    #[test]
    fn the_running_test_binary_loses_its_debug_sections_and_symbol_table_only() {
        // The test binary is built with line tables (the workspace's dev profile): it has
        // `.debug_line` and friends to remove, and a static symbol table.
        let path = std::env::current_exe().unwrap();
        let original = std::fs::read(&path).unwrap();
        let (plan, stripped) = strip_file(&path)
            .unwrap()
            .expect("debug sections to remove");
        for name in [".debug_line", ".symtab", ".strtab"] {
            assert!(
                plan.removed().iter().any(|removed| removed == name),
                "{name}"
            );
        }
        assert!(stripped.len() < original.len());
        let before = object::read::File::parse(&*original).unwrap();
        let after = object::read::File::parse(&*stripped).unwrap();
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
        // Every section stays but the unmapped debug ones and the static symbol table.
        let kept = section_names(&before, |name, alloc| {
            alloc || !is_debug_section(name) && ![&b".symtab"[..], b".strtab"].contains(&name)
        });
        assert_eq!(section_names(&after, |_, _| true), kept);
        // What the loader maps is the same bytes at the same offsets (past the file header,
        // whose section table fields changed).
        let image = |file: &object::read::elf::ElfFile64, bytes: &[u8]| -> Vec<Vec<u8>> {
            let header = std::mem::size_of::<elf::FileHeader64<Endianness>>();
            file.elf_program_headers()
                .iter()
                .map(|program| {
                    let offset = program.p_offset.get(file.endian()) as usize;
                    let end = offset + program.p_filesz.get(file.endian()) as usize;
                    bytes[offset.max(header)..end.max(header)].to_vec()
                })
                .collect()
        };
        let elf_before = object::read::elf::ElfFile64::parse(&*original).unwrap();
        let elf_after = object::read::elf::ElfFile64::parse(&*stripped).unwrap();
        assert!(
            image(&elf_after, &stripped) == image(&elf_before, &original),
            "the mapped bytes changed"
        );
        assert_eq!(before.entry(), after.entry());
        // Deterministic: the same input gives the same plan and bytes.
        assert_eq!(
            strip_file(&path).unwrap().unwrap(),
            (plan, stripped.clone())
        );
        // The stripped copy runs: its harness starts and lists this very test.
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("stripped");
        std::fs::write(&copy, &stripped).unwrap();
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

    #[test]
    fn a_copy_stops_when_its_caller_stops_it() {
        let path = std::env::current_exe().unwrap();
        let mut file = File::open(&path).unwrap();
        let plan = plan_strip(&mut file).unwrap().unwrap();
        let mut out = Vec::new();
        let mut chunks = 0;
        let stopped = plan.write_to(&mut file, &mut out, &mut || {
            chunks += 1;
            if chunks > 2 {
                Err(std::io::Error::other("stopped"))
            } else {
                Ok(())
            }
        });
        assert_eq!(stopped.unwrap_err().to_string(), "stopped");
        assert!((out.len() as u64) < plan.len());
    }
}
