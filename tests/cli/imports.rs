//! No file-level import circles and no import up a floor: a file depends on the files whose
//! items it names (in a `use`, a path in its code or in a macro's arguments, following
//! re-exports to the file that defines the item); no files of a crate depend on each other
//! around a circle, and no file depends on a file of a higher floor (docs/architecture.md).
//! Test code (`#[cfg(test)]` modules, files and items) is left out: a test reaches into what
//! it tests.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::punctuated::Punctuated;
use syn::visit::Visit;

use super::docs::repo;

/// The crates read, by their root file.
const CRATES: &[&str] = &["crates/rajapasu-core/src/lib.rs", "src/lib.rs"];

/// Directories of those crates whose files are still in circles, each untangled in turn: a
/// circle is reported unless all its files are in one of these, and each must still have one
/// (a directory that has none is checked from then on).
const UNTANGLING: &[&str] = &[];

/// A module of a crate: a file, or a module written inline in one.
#[derive(Default)]
struct Module {
    file: usize,
    parent: Option<usize>,
    children: BTreeMap<String, usize>,
    /// Items defined here, by name.
    items: BTreeSet<String>,
    /// Names imported by `use`, with the path they stand for, as written.
    imports: BTreeMap<String, Vec<String>>,
    globs: Vec<Vec<String>>,
    /// Paths of two segments or more that its code names, and its imports (not its
    /// re-exports).
    named: Vec<Vec<String>>,
}

/// The modules of one crate and the files that hold them (paths relative to the repository).
#[derive(Default)]
pub struct Crate {
    files: Vec<String>,
    modules: Vec<Module>,
}

/// What a path names: a module, or an item defined in a file.
#[derive(Clone, Copy)]
enum Named {
    Module(usize),
    Item(usize),
}

fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| match &a.meta {
        syn::Meta::List(list) if list.path.is_ident("cfg") => {
            let tokens = list.tokens.to_string();
            tokens.split(|c: char| !c.is_alphanumeric() && c != '_').any(|w| w == "test")
                && !tokens.contains("not")
        }
        _ => false,
    })
}

fn segments(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| s.ident.to_string()).collect()
}

/// The paths of code, without descending into modules (each is read as a module of its own)
/// or test code.
#[derive(Default)]
struct Paths(Vec<Vec<String>>);

impl<'ast> Visit<'ast> for Paths {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if !matches!(item, syn::Item::Mod(_) | syn::Item::Use(_)) && !is_test(item_attrs(item)) {
            syn::visit::visit_item(self, item);
        }
    }

    fn visit_impl_item(&mut self, item: &'ast syn::ImplItem) {
        let attrs = match item {
            syn::ImplItem::Const(i) => &i.attrs,
            syn::ImplItem::Fn(i) => &i.attrs,
            syn::ImplItem::Type(i) => &i.attrs,
            _ => return syn::visit::visit_impl_item(self, item),
        };
        if !is_test(attrs) {
            syn::visit::visit_impl_item(self, item);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.segments.len() > 1 {
            self.0.push(segments(path));
        }
        syn::visit::visit_path(self, path);
    }

    /// `pub(in crate::exact)` names the module an item is visible in: it restricts, it does
    /// not depend.
    fn visit_vis_restricted(&mut self, _: &'ast syn::VisRestricted) {}

    /// A macro's arguments, when they read as expressions (`format!`, `assert!`, `matches!`'s
    /// first, `vec!`), are code too.
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let parser = Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        if let Ok(args) = mac.parse_body_with(parser) {
            args.iter().for_each(|e| self.visit_expr(e));
        }
        syn::visit::visit_macro(self, mac);
    }
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    use syn::Item::*;
    match item {
        Const(i) => &i.attrs,
        Enum(i) => &i.attrs,
        ExternCrate(i) => &i.attrs,
        Fn(i) => &i.attrs,
        ForeignMod(i) => &i.attrs,
        Impl(i) => &i.attrs,
        Macro(i) => &i.attrs,
        Mod(i) => &i.attrs,
        Static(i) => &i.attrs,
        Struct(i) => &i.attrs,
        Trait(i) => &i.attrs,
        TraitAlias(i) => &i.attrs,
        Type(i) => &i.attrs,
        Union(i) => &i.attrs,
        Use(i) => &i.attrs,
        _ => &[],
    }
}

fn item_name(item: &syn::Item) -> Option<String> {
    use syn::Item::*;
    let ident = match item {
        Const(i) => &i.ident,
        Enum(i) => &i.ident,
        Fn(i) => &i.sig.ident,
        Static(i) => &i.ident,
        Struct(i) => &i.ident,
        Trait(i) => &i.ident,
        TraitAlias(i) => &i.ident,
        Type(i) => &i.ident,
        Union(i) => &i.ident,
        _ => return None,
    };
    Some(ident.to_string())
}

/// The leaves of a `use` tree: (name brought in, path) or a glob's path (name None).
fn use_leaves(
    tree: &syn::UseTree,
    prefix: &mut Vec<String>,
    out: &mut Vec<(Option<String>, Vec<String>)>,
) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_leaves(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) if n.ident == "self" => {
            out.push((prefix.last().cloned(), prefix.clone()))
        }
        syn::UseTree::Name(n) => out.push((
            Some(n.ident.to_string()),
            [prefix.clone(), vec![n.ident.to_string()]].concat(),
        )),
        syn::UseTree::Rename(r) => out.push((
            Some(r.rename.to_string()),
            [prefix.clone(), vec![r.ident.to_string()]].concat(),
        )),
        syn::UseTree::Glob(_) => out.push((None, prefix.clone())),
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| use_leaves(t, prefix, out)),
    }
}

impl Crate {
    /// Reads the crate whose root file is `root` (relative to `base`) and every module file it
    /// declares.
    pub fn read(base: &Path, root: &str) -> Crate {
        let mut krate = Crate::default();
        let path = base.join(root);
        let dir = path.parent().unwrap().to_path_buf();
        krate.add_file(base, &path, dir, None);
        krate
    }

    fn add_file(&mut self, base: &Path, path: &Path, dir: PathBuf, parent: Option<usize>) -> usize {
        let text =
            std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        self.files.push(path.strip_prefix(base).unwrap().to_string_lossy().into_owned());
        self.add_module(base, self.files.len() - 1, dir, parent, &file.items)
    }

    fn add_module(
        &mut self,
        base: &Path,
        file: usize,
        dir: PathBuf,
        parent: Option<usize>,
        items: &[syn::Item],
    ) -> usize {
        let id = self.modules.len();
        self.modules.push(Module { file, parent, ..Module::default() });
        let mut code = Paths::default();
        for item in items.iter().filter(|i| !is_test(item_attrs(i))) {
            match item {
                syn::Item::Mod(m) => {
                    let name = m.ident.to_string();
                    let child = match &m.content {
                        Some((_, inner)) => {
                            self.add_module(base, file, dir.join(&name), Some(id), inner)
                        }
                        None => {
                            let flat = dir.join(format!("{name}.rs"));
                            let path =
                                if flat.exists() { flat } else { dir.join(&name).join("mod.rs") };
                            self.add_file(base, &path, dir.join(&name), Some(id))
                        }
                    };
                    self.modules[id].children.insert(name, child);
                }
                syn::Item::Use(u) => {
                    let mut leaves = Vec::new();
                    use_leaves(&u.tree, &mut Vec::new(), &mut leaves);
                    // A re-export passes a name on: whoever names it depends on the file
                    // that defines it, not on this one.
                    let passed_on = !matches!(u.vis, syn::Visibility::Inherited);
                    let module = &mut self.modules[id];
                    for (name, path) in leaves {
                        if !passed_on {
                            module.named.push(path.clone());
                        }
                        match name {
                            Some(name) => {
                                module.imports.insert(name, path);
                            }
                            None => module.globs.push(path),
                        }
                    }
                }
                _ => {
                    if let Some(name) = item_name(item) {
                        self.modules[id].items.insert(name);
                    }
                    code.visit_item(item);
                }
            }
        }
        self.modules[id].named.extend(code.0);
        id
    }

    /// What `path`, written in module `from`, names in this crate (None: another crate's, or
    /// a local name).
    fn resolve(&self, from: usize, path: &[String], depth: u32) -> Option<Named> {
        if depth > 32 {
            return None;
        }
        match path.first()?.as_str() {
            "crate" => self.walk(0, &path[1..], depth),
            "self" => self.walk(from, &path[1..], depth),
            "super" => self.walk(self.modules[from].parent?, &path[1..], depth),
            _ => self.lookup(from, path, depth),
        }
    }

    /// What `path` names inside module `m`.
    fn walk(&self, m: usize, path: &[String], depth: u32) -> Option<Named> {
        match path.first().map(String::as_str) {
            None => Some(Named::Module(m)),
            Some("super") => self.walk(self.modules[m].parent?, &path[1..], depth),
            Some(_) => self.lookup(m, path, depth),
        }
    }

    /// The name `path[0]` in module `m`: a child module, an item defined there, an import (to
    /// the file that defines what it imports), or a name of a glob import.
    fn lookup(&self, m: usize, path: &[String], depth: u32) -> Option<Named> {
        let (name, rest) = (&path[0], &path[1..]);
        let module = &self.modules[m];
        if let Some(&child) = module.children.get(name) {
            return self.walk(child, rest, depth);
        }
        if module.items.contains(name) {
            return Some(Named::Item(module.file));
        }
        if let Some(target) = module.imports.get(name) {
            return self.resolve(m, &[target.as_slice(), rest].concat(), depth + 1);
        }
        for glob in &module.globs {
            if let Some(Named::Module(g)) = self.resolve(m, glob, depth + 1) {
                let there = &self.modules[g];
                if there.children.contains_key(name)
                    || there.items.contains(name)
                    || there.imports.contains_key(name)
                {
                    return self.lookup(g, path, depth + 1);
                }
            }
        }
        None
    }

    fn file_of(&self, named: Named) -> usize {
        match named {
            Named::Module(m) => self.modules[m].file,
            Named::Item(file) => file,
        }
    }

    /// The paths that the crate's files name into the crate called `name` (`name::...`), each
    /// with its file.
    pub fn paths_into(&self, name: &str) -> Vec<(&str, String)> {
        let into = |path: &&Vec<String>| path.first().is_some_and(|first| first == name);
        let file = |m: &Module| self.files[m.file].as_str();
        self.modules
            .iter()
            .flat_map(|m| m.named.iter().filter(into).map(move |path| (file(m), path.join("::"))))
            .collect()
    }

    /// Each file's dependencies on the crate's other files, with a path that makes each.
    pub fn dependencies(&self) -> BTreeMap<&str, BTreeMap<&str, String>> {
        let mut out: BTreeMap<&str, BTreeMap<&str, String>> =
            self.files.iter().map(|f| (f.as_str(), BTreeMap::new())).collect();
        for (id, module) in self.modules.iter().enumerate() {
            for path in &module.named {
                let Some(named) = self.resolve(id, path, 0) else { continue };
                let target = self.file_of(named);
                if target != module.file {
                    out.get_mut(self.files[module.file].as_str())
                        .unwrap()
                        .entry(self.files[target].as_str())
                        .or_insert_with(|| path.join("::"));
                }
            }
        }
        out
    }
}

/// The circles of a dependency graph: its strongly connected components of more than one file
/// (Tarjan's algorithm), each sorted.
pub fn circles<'a>(graph: &BTreeMap<&'a str, BTreeMap<&'a str, String>>) -> Vec<Vec<&'a str>> {
    struct Search<'g, 'a> {
        graph: &'g BTreeMap<&'a str, BTreeMap<&'a str, String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<&'a str>>,
    }
    impl<'a> Search<'_, 'a> {
        fn visit(&mut self, v: &'a str) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            self.on_stack.insert(v);
            for &w in self.graph[v].keys() {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.out.push(component);
                }
            }
        }
    }
    let mut search = Search {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for &v in graph.keys() {
        if !search.index.contains_key(v) {
            search.visit(v);
        }
    }
    search.out
}

/// A circle of `graph` with the dependencies that close it, as text.
fn described(graph: &BTreeMap<&str, BTreeMap<&str, String>>, files: &[&str]) -> String {
    let mut text = files.join(" <-> ");
    for &f in files {
        for (to, path) in graph[f].iter().filter(|(to, _)| files.contains(to)) {
            text += &format!("\n    {f} -> {to} ({path})");
        }
    }
    text
}

/// The directory of `UNTANGLING` that holds every file of `circle`, if one does.
fn untangling(circle: &[&str]) -> Option<&'static str> {
    UNTANGLING.iter().copied().find(|dir| circle.iter().all(|f| f.starts_with(dir)))
}

#[test]
fn no_file_is_in_an_import_circle() {
    let (mut found, mut still) = (Vec::new(), BTreeSet::new());
    for root in CRATES {
        let krate = Crate::read(repo(), root);
        let graph = krate.dependencies();
        for circle in circles(&graph) {
            match untangling(&circle) {
                Some(dir) => {
                    still.insert(dir);
                }
                None => found.push(described(&graph, &circle)),
            }
        }
    }
    assert!(
        found.is_empty(),
        "files that import each other around a circle: move what both need into a file of its own\n{}",
        found.join("\n")
    );
    let clean: Vec<&&str> = UNTANGLING.iter().filter(|dir| !still.contains(*dir)).collect();
    assert!(
        clean.is_empty(),
        "{clean:?} have no import circle any more: remove them from UNTANGLING (tests/cli/imports.rs), so that they are checked"
    );
}

#[test]
fn the_import_check_finds_a_circle_through_code_re_exports_and_macros_but_not_tests() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "lib.rs",
        "pub mod a;\nmod b;\nmod c;\nmod d;\npub use b::B;\n#[cfg(test)]\nmod tests;\n",
    );
    // a -> b through the root's re-export, b -> c in code, c -> a in a macro's argument.
    write("a.rs", "pub struct A;\npub fn f() -> crate::B { crate::B }\n");
    write("b.rs", "pub struct B;\nfn g() { let _ = super::c::C; }\n");
    write("c.rs", "pub struct C;\nfn h() { println!(\"{}\", crate::a::f()); }\n");
    // d uses a and b, and its tests use d's parent: not a circle.
    write(
        "d.rs",
        "use crate::a::A;\nuse super::b::*;\n#[cfg(test)]\nmod tests { use crate::d; }\n",
    );
    write("tests.rs", "use crate::d::*;\n");
    let krate = Crate::read(dir.path(), "lib.rs");
    let graph = krate.dependencies();
    assert_eq!(circles(&graph), vec![vec!["a.rs", "b.rs", "c.rs"]], "{graph:?}");
    assert_eq!(
        graph["a.rs"].keys().copied().collect::<Vec<_>>(),
        ["b.rs"],
        "the re-export resolved to the file that defines B"
    );
    assert_eq!(graph["d.rs"].keys().copied().collect::<Vec<_>>(), ["a.rs", "b.rs"]);
    assert!(!graph.contains_key("tests.rs"), "test files are not read");
    // Without the macro's path there is no circle.
    write("c.rs", "pub struct C;\nfn h() { println!(\"{}\", 1); }\n");
    assert!(circles(&Crate::read(dir.path(), "lib.rs").dependencies()).is_empty());
}

/// The floors of the crates' files, lowest first (docs/architecture.md): a file may name the
/// files of its own floor and of the floors below, never those of a floor above. Each is a path
/// prefix, its floor and its name; the longest prefix that matches a file decides. The core
/// crate's floors come first, up to [`CORE_TOP`]: the engine, then the exact solvers' file
/// formats and the combinatorial index beneath them, then the exact solvers (round and match),
/// the replay page and recorded games, then the players (which offer the exact solvers' perfect
/// players), then the simulation.
const FLOORS: &[(&str, u32, &str)] = &[
    ("crates/rajapasu-core/src/files.rs", 0, "files"),
    ("crates/rajapasu-core/src/engine/", 1, "engine"),
    ("crates/rajapasu-core/src/exact/index.rs", 2, "exact's files"),
    ("crates/rajapasu-core/src/exact/files/", 2, "exact's files"),
    ("crates/rajapasu-core/src/exact/", 3, "exact"),
    ("crates/rajapasu-core/src/show/", 3, "show"),
    ("crates/rajapasu-core/src/game_record.rs", 3, "game_record"),
    ("crates/rajapasu-core/src/agents/", 4, "agents"),
    ("crates/rajapasu-core/src/sim/", 5, "sim"),
    ("crates/rajapasu-core/src/lib.rs", 6, "the core crate's root"),
    ("src/process.rs", 7, "the leaves"),
    ("src/size.rs", 7, "the leaves"),
    ("src/io/", 7, "io"),
    ("src/analysis/", 8, "analysis"),
    ("src/ratings/", 9, "ratings"),
    ("src/plot/", 10, "plot"),
    ("src/app/", 11, "app"),
    ("src/cli/", 12, "cli"),
    ("src/server/", 12, "server"),
    ("src/lib.rs", 13, "the crate's root"),
];

/// The highest floor of the core crate in [`FLOORS`].
const CORE_TOP: u32 = 6;

/// The root crate's name, which no file of the core crate may name.
const ROOT_CRATE: &str = "rajapasu";

/// The floor of `file` in `floors`, if one holds it.
fn floor_of<'f>(
    floors: &'f [(&str, u32, &str)],
    file: &str,
) -> Option<&'f (&'f str, u32, &'f str)> {
    floors
        .iter()
        .filter(|(prefix, _, _)| file.starts_with(prefix))
        .max_by_key(|(prefix, _, _)| prefix.len())
}

/// Every import of `krate` from a file to a file of a higher floor, a file that has no floor,
/// and a path of a file of the core crate (floors 0 to `core_top`) into the crate named `root`
/// (the crate above it), as text.
fn floor_breaches(
    krate: &Crate,
    floors: &[(&str, u32, &str)],
    core_top: u32,
    root: &str,
) -> Vec<String> {
    let mut found = Vec::new();
    for (file, deps) in krate.dependencies() {
        let Some(&(_, from, from_name)) = floor_of(floors, file) else {
            found.push(format!("{file} has no floor: give its folder one in FLOORS (tests/cli/imports.rs) and docs/architecture.md"));
            continue;
        };
        for (to, path) in deps {
            match floor_of(floors, to) {
                Some(&(_, up, up_name)) if up > from => found.push(format!(
                    "{file} ({from_name}) imports {to} ({up_name}), a higher floor: {path}"
                )),
                _ => {}
            }
        }
    }
    for (file, path) in krate.paths_into(root) {
        if floor_of(floors, file).is_some_and(|&(_, floor, _)| floor <= core_top) {
            found.push(format!("{file} (the core crate) names the crate above it: {path}"));
        }
    }
    found
}

#[test]
fn no_file_imports_a_higher_floor() {
    let found: Vec<String> = CRATES
        .iter()
        .flat_map(|root| floor_breaches(&Crate::read(repo(), root), FLOORS, CORE_TOP, ROOT_CRATE))
        .collect();
    assert!(
        found.is_empty(),
        "files that import a higher floor (the floors: docs/architecture.md): move what both need down, or the importer up\n{}",
        found.join("\n")
    );
}

#[test]
fn the_floor_check_names_the_file_and_the_import_that_go_up() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("lib.rs", "pub mod io;\npub mod app;\npub mod cli;\n");
    write("io/mod.rs", "pub struct Table;\n#[cfg(test)]\nmod tests { use crate::cli::Args; }\n");
    write("app/mod.rs", "pub struct Job(crate::io::Table);\n");
    write("cli/mod.rs", "pub struct Args;\npub fn run() -> crate::app::Job { todo!() }\n");
    let floors: &[(&str, u32, &str)] =
        &[("io/", 1, "io"), ("app/", 5, "app"), ("cli/", 6, "cli"), ("lib.rs", 7, "root")];
    let read = || Crate::read(dir.path(), "lib.rs");
    assert!(
        floor_breaches(&read(), floors, 0, "above").is_empty(),
        "downward imports and tests pass"
    );
    write("app/mod.rs", "use crate::cli::Args;\npub struct Job(crate::io::Table, Args);\n");
    write("io/mod.rs", "pub struct Table;\nfn f() { let _ = above::Thing; }\n");
    let found = floor_breaches(&read(), floors, 0, "above");
    assert_eq!(
        found,
        ["app/mod.rs (app) imports cli/mod.rs (cli), a higher floor: crate::cli::Args"],
        "{found:?}"
    );
    let core: &[(&str, u32, &str)] =
        &[("io/", 0, "core"), ("app/", 5, "app"), ("cli/", 6, "cli"), ("lib.rs", 7, "root")];
    let found = floor_breaches(&read(), core, 0, "above");
    assert!(
        found.contains(
            &"io/mod.rs (the core crate) names the crate above it: above::Thing".to_string()
        ),
        "{found:?}"
    );
    write("tools.rs", "pub fn tool() {}\n");
    write("lib.rs", "pub mod io;\npub mod app;\npub mod cli;\npub mod tools;\n");
    assert!(floor_breaches(&read(), floors, 0, "above")
        .iter()
        .any(|f| f.starts_with("tools.rs has no floor")));
}

/// The core crate's own floors, read from a small tree laid out as the core crate is: the
/// imports downwards pass; an engine file naming the exact solvers, or an exact file naming the
/// players, is named with its import.
#[test]
fn the_core_crates_floors_run_engine_exact_agents_sim() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join("crates/rajapasu-core/src").join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "lib.rs",
        "pub mod engine;\npub mod exact;\npub mod agents;\npub mod sim;\npub mod show;\n",
    );
    write("engine/mod.rs", "pub struct Position;\n");
    write("exact/mod.rs", "pub struct Table(crate::engine::Position);\n");
    write("show/mod.rs", "pub struct Film(crate::engine::Position);\n");
    write("agents/mod.rs", "pub struct Agent(crate::exact::Table);\n");
    write("sim/mod.rs", "pub struct Run(crate::agents::Agent, crate::show::Film);\n");
    let read = || Crate::read(dir.path(), "crates/rajapasu-core/src/lib.rs");
    assert_eq!(floor_breaches(&read(), FLOORS, CORE_TOP, ROOT_CRATE), Vec::<String>::new());
    write("engine/mod.rs", "pub struct Position;\nfn solve() -> crate::exact::Table { todo!() }\n");
    write("exact/mod.rs", "use crate::agents::Agent;\npub struct Table(crate::engine::Position);\nfn f(_: Agent) {}\n");
    write(
        "show/mod.rs",
        "pub struct Film(crate::engine::Position);\nfn g() { let _ = rajapasu::io::Dataset; }\n",
    );
    let found = floor_breaches(&read(), FLOORS, CORE_TOP, ROOT_CRATE);
    assert_eq!(
        found,
        [
            "crates/rajapasu-core/src/engine/mod.rs (engine) imports crates/rajapasu-core/src/exact/mod.rs (exact), a higher floor: crate::exact::Table",
            "crates/rajapasu-core/src/exact/mod.rs (exact) imports crates/rajapasu-core/src/agents/mod.rs (agents), a higher floor: crate::agents::Agent",
            "crates/rajapasu-core/src/show/mod.rs (the core crate) names the crate above it: rajapasu::io::Dataset",
        ],
        "{found:?}"
    );
}

/// Within `exact`, the file formats (and the index they rank by) lie beneath the round and match
/// solvers: a solver may name them, a file format may not name a solver.
#[test]
fn exacts_files_lie_beneath_its_solvers() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join("crates/rajapasu-core/src").join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("lib.rs", "pub mod engine;\npub mod exact;\n");
    write("engine/mod.rs", "pub struct Position;\n");
    write("exact/mod.rs", "mod files;\nmod index;\nmod round;\n");
    write("exact/index.rs", "pub struct Rank(crate::engine::Position);\n");
    write(
        "exact/files/mod.rs",
        "pub struct LevelFile(pub(in crate::exact) crate::exact::index::Rank);\n",
    );
    write("exact/round/mod.rs", "pub struct Solver(crate::exact::files::LevelFile);\n");
    let read = || Crate::read(dir.path(), "crates/rajapasu-core/src/lib.rs");
    assert_eq!(floor_breaches(&read(), FLOORS, CORE_TOP, ROOT_CRATE), Vec::<String>::new());
    write(
        "exact/files/mod.rs",
        "pub struct LevelFile(crate::exact::index::Rank);\nfn f(_: crate::exact::round::Solver) {}\n",
    );
    let found = floor_breaches(&read(), FLOORS, CORE_TOP, ROOT_CRATE);
    assert_eq!(
        found,
        ["crates/rajapasu-core/src/exact/files/mod.rs (exact's files) imports crates/rajapasu-core/src/exact/round/mod.rs (exact), a higher floor: crate::exact::round::Solver"],
        "{found:?}"
    );
}
