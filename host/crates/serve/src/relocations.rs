//! Giving back the pages of the running binary's relocation table once it has been applied.
//!
//! Why (issue 17, peak RSS at small captures): a position-independent binary carries a table of
//! the addresses the dynamic loader fixes up before `main` (`.rela.dyn`, 0.84 MiB in a release
//! `rea`, 36k entries). The loader reads it once and nothing reads it again, yet its pages stay
//! mapped, counted in every build's and server's resident set. They are clean pages of a
//! read-only file mapping, so [`drop_relocation_table`] unmaps them (`MADV_DONTNEED`): nothing
//! is lost, and a later read would map them again from the file.

/// Unmaps the whole pages of this executable's applied relocation table (see the module
/// documentation); does nothing where the table cannot be found in a read-only segment.
pub fn drop_relocation_table() {
    #[cfg(all(target_os = "linux", target_pointer_width = "64"))]
    if let Some((start, end)) = elf::relocation_pages() {
        // SAFETY: [start, end) is whole pages inside a loaded, read-only segment of this
        // executable (`relocation_pages` checks it): a private file mapping never written, so
        // unmapping its pages discards nothing and a later access maps them from the file again.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED);
        }
    }
}

#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
mod elf {
    /// A program header's type: a loaded segment, the dynamic section, the headers themselves.
    const PT_LOAD: u32 = 1;
    const PT_DYNAMIC: u32 = 2;
    const PT_PHDR: u32 = 6;
    /// A segment's write permission.
    const PF_W: u32 = 2;
    /// Dynamic tags: the end of the section, the relocation table's address and size.
    const DT_NULL: i64 = 0;
    const DT_RELA: i64 = 7;
    const DT_RELASZ: i64 = 8;

    /// An entry of the dynamic section (ELF64).
    #[repr(C)]
    struct Dyn {
        tag: i64,
        value: u64,
    }

    /// The whole pages of the relocation table, when it lies in a read-only loaded segment.
    pub(super) fn relocation_pages() -> Option<(usize, usize)> {
        let headers = program_headers()?;
        let bias = usize::try_from(headers.as_ptr() as u64)
            .ok()?
            .checked_sub(usize::try_from(find(headers, PT_PHDR)?.p_vaddr).ok()?)?;
        let (address, size) = relocation_table(headers, bias)?;
        // The loader may have added the load bias to the entry in place.
        let start = if address < bias {
            bias.checked_add(address)?
        } else {
            address
        };
        let end = start.checked_add(size)?;
        let read_only = headers.iter().any(|header| {
            let Ok(first) = usize::try_from(header.p_vaddr).map(|vaddr| bias + vaddr) else {
                return false;
            };
            let length = usize::try_from(header.p_memsz).unwrap_or(0);
            header.p_type == PT_LOAD
                && header.p_flags & PF_W == 0
                && first <= start
                && end <= first.saturating_add(length)
        });
        // SAFETY: sysconf has no preconditions.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).ok()?;
        let (first, last) = (start.div_ceil(page) * page, end / page * page);
        (read_only && first < last).then_some((first, last))
    }

    /// This executable's program headers, as the kernel passed them.
    fn program_headers() -> Option<&'static [libc::Elf64_Phdr]> {
        // SAFETY: getauxval has no preconditions.
        let (address, count) = unsafe {
            (
                libc::getauxval(libc::AT_PHDR),
                libc::getauxval(libc::AT_PHNUM),
            )
        };
        if address == 0 || count == 0 {
            return None;
        }
        // SAFETY: the kernel maps the executable's `count` program headers at `address` for the
        // process's life (the auxiliary vector's AT_PHDR and AT_PHNUM).
        Some(unsafe {
            std::slice::from_raw_parts(
                address as *const libc::Elf64_Phdr,
                usize::try_from(count).ok()?,
            )
        })
    }

    fn find(headers: &[libc::Elf64_Phdr], kind: u32) -> Option<&libc::Elf64_Phdr> {
        headers.iter().find(|header| header.p_type == kind)
    }

    /// The relocation table's address (as the dynamic section holds it) and size in bytes.
    fn relocation_table(headers: &[libc::Elf64_Phdr], bias: usize) -> Option<(usize, usize)> {
        let dynamic = find(headers, PT_DYNAMIC)?;
        let entries = usize::try_from(dynamic.p_memsz).ok()? / size_of::<Dyn>();
        let address = bias.checked_add(usize::try_from(dynamic.p_vaddr).ok()?)?;
        // SAFETY: PT_DYNAMIC locates the loaded dynamic section, `entries` entries long, mapped
        // for the process's life.
        let section = unsafe { std::slice::from_raw_parts(address as *const Dyn, entries) };
        let (mut table, mut size) = (None, None);
        for entry in section.iter().take_while(|entry| entry.tag != DT_NULL) {
            match entry.tag {
                DT_RELA => table = usize::try_from(entry.value).ok(),
                DT_RELASZ => size = usize::try_from(entry.value).ok(),
                _ => {}
            }
        }
        Some((table?, size?))
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// The test binary is position-independent with a relocation table of many pages: the
        /// range found is whole pages of a read-only mapping of the test executable.
        #[test]
        fn the_relocation_table_is_found_in_a_read_only_mapping_of_this_executable() {
            let (start, end) = relocation_pages().expect("a PIE test binary has .rela.dyn");
            assert!(start < end && start % 4096 == 0 && end % 4096 == 0);
            let exe = std::fs::read_link("/proc/self/exe").unwrap();
            let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
            let mapping = maps.lines().find(|line| {
                let (range, _) = line.split_once(' ').unwrap();
                let (low, high) = range.split_once('-').unwrap();
                let low = usize::from_str_radix(low, 16).unwrap();
                let high = usize::from_str_radix(high, 16).unwrap();
                low <= start && end <= high
            });
            let mapping = mapping.expect("the range lies in one mapping");
            assert!(mapping.contains(" r--p "), "{mapping}");
            assert!(mapping.ends_with(exe.to_str().unwrap()), "{mapping}");
        }

        #[test]
        fn the_dropped_pages_read_back_unchanged() {
            let (start, end) = relocation_pages().unwrap();
            // SAFETY: the range is mapped read-only for the process's life (the test above).
            let table = unsafe { std::slice::from_raw_parts(start as *const u8, end - start) };
            let before = table.to_vec();
            super::super::drop_relocation_table();
            assert_eq!(table, &before[..]);
        }
    }
}
