// Package archive packs a skill directory as a .tar.gz, so that the same files
// give the same bytes, and unpacks one (or a .zip) from an untrusted source:
// no path that could reach outside the skill directory, links kept as links
// for the registry to refuse, and no more files or bytes than a skill
// directory may hold.
//
// It imports, of this module: desired/registry, internal/banner.
package archive
