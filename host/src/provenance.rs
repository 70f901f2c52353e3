//! What a state depends on besides its capture and manifest ([`rea_state::precomputed`]): the
//! code that derives it (this rea's version and its binary's GNU build id) and the pipeline's rule
//! stages. `environment-build` keys the state it stores in a bundle with it; `environment-serve
//! --state` reads that state only when its own provenance is the same.

use std::sync::OnceLock;

use rea_registry::Registry;
use rea_state::precomputed::{Provenance, pipeline_identity};

/// The provenance of a state this process derives with this pipeline.
pub fn provenance(pipeline: &rea_pipeline::Pipeline, registry: &Registry) -> Provenance {
    Provenance {
        deriver: deriver().to_owned(),
        pipeline: pipeline_identity(pipeline, registry),
    }
}

/// `rea VERSION build-id DIGEST` (`build-id unknown PID` when the binary carries none: then only a state
/// this very process derived would be known to be its own, so none is read back).
pub fn deriver() -> &'static str {
    static DERIVER: OnceLock<String> = OnceLock::new();
    DERIVER.get_or_init(|| {
        let build = build_id().unwrap_or_else(|| format!("unknown {}", std::process::id()));
        format!("rea {} build-id {build}", env!("CARGO_PKG_VERSION"))
    })
}

/// The SHA-256 of the running binary's GNU build id (the linker's digest of its contents), read
/// from its ELF section headers' notes without reading the rest of the file (nor parsing its
/// symbol table, which takes long in a binary with symbols).
fn build_id() -> Option<String> {
    use object::elf::{ELF_NOTE_GNU, FileHeader64, NT_GNU_BUILD_ID};
    use object::read::elf::{FileHeader, SectionHeader};
    use object::{Endianness, ReadCache};
    let file = std::fs::File::open(std::env::current_exe().ok()?).ok()?;
    let cache = ReadCache::new(file);
    let header = FileHeader64::<Endianness>::parse(&cache).ok()?;
    let endian = header.endian().ok()?;
    let sections = header.sections(endian, &cache).ok()?;
    for section in sections.iter() {
        let Ok(Some(mut notes)) = section.notes(endian, &cache) else {
            continue;
        };
        while let Ok(Some(note)) = notes.next() {
            if note.name() == ELF_NOTE_GNU && note.n_type(endian) == NT_GNU_BUILD_ID {
                return Some(rea_evidence::sha256_hex(note.desc()));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    /// The notes read directly name the build id `object`'s full parse finds.
    #[test]
    fn the_build_id_is_the_one_the_elf_file_names() {
        use object::{Object, ReadCache};
        let file = std::fs::File::open(std::env::current_exe().unwrap()).unwrap();
        let cache = ReadCache::new(file);
        let binary = object::File::parse(&cache).unwrap();
        let id = binary
            .build_id()
            .unwrap()
            .expect("the test binary has a build id");
        assert_eq!(super::build_id(), Some(rea_evidence::sha256_hex(id)));
    }
}
