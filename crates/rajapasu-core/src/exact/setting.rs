//! The settings of the exact solvers that a front end gives (a flag, a keyword argument, a
//! field of a request). An error about one names it through a [`Naming`], so that each front
//! end words it its own way; by default ([`Setting::default_name`]) by its field.

/// A setting of the solvers that an error can be about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Setting {
    /// The memory a solve may use ([`super::SolveOptions::max_memory`]).
    MaxMemory,
    /// The positions a solve may reach ([`super::SolveOptions::max_positions`]).
    MaxPositions,
    /// The disk a spilled solve may use ([`super::SpillOptions::max_disk`]).
    MaxDisk,
    /// The directory of match tables ([`super::StoreSettings::tables`]).
    Tables,
    /// Solving with the levels on disk ([`super::SpillOptions`]), the way out of the memory
    /// bound. A front end that cannot solve so names it with an empty string, and a message
    /// then does not offer it.
    Spill,
}

/// How a message names a setting: a front end's flag, keyword or field.
pub type Naming<'a> = &'a dyn Fn(Setting) -> String;

impl Setting {
    /// The setting's field, as the solver's options and the application's requests call it.
    pub fn field(self) -> &'static str {
        match self {
            Setting::MaxMemory => "max_memory",
            Setting::MaxPositions => "max_positions",
            Setting::MaxDisk => "max_disk",
            Setting::Tables => "tables",
            Setting::Spill => "spill",
        }
    }

    /// How the library's own messages name it: the field, or the tables directory in words;
    /// they offer no spilled solve.
    pub fn default_name(self) -> String {
        match self {
            Setting::Tables => "the tables directory".to_string(),
            Setting::Spill => String::new(),
            s => s.field().to_string(),
        }
    }
}
