package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/skillsync/skillsync/sources/archive"
	"github.com/skillsync/skillsync/sources/oci"
	"github.com/skillsync/skillsync/sources/signing"
	"github.com/skillsync/skillsync/sources/wellknown"
)

func newPublishCommand(g *globals) *cobra.Command {
	var site, keyFile string
	var sign bool
	cmd := &cobra.Command{
		Use:   "publish (--well-known DIR | oci://REGISTRY/REPOSITORY:TAG) [SKILL...]",
		Short: "Publish the workspace's skill directories as a static discovery index or an OCI artifact",
		Long: `Publish the skill directories the workspace declares (or those named) where other
workspaces declare them as a source, and get the same skills, byte for byte. The
same skills give the same bytes, so publishing again changes nothing that did not
change. Skills declared inline and those of capabilities have no directory to
publish.

With --well-known DIR: write DIR/.well-known/agent-skills/index.json, in the 0.2.0
form, and beside it an artifact per skill: NAME/SKILL.md for a skill that is its
SKILL.md alone, NAME.tar.gz for one with other files. Serve DIR at the root of any
web server; a workspace then declares
index: https://HOST/.well-known/agent-skills/index.json. An index in DIR that
skillsync did not publish, or a file where an artifact goes that its index did
not name, is kept, and nothing is written.

With oci://REGISTRY/REPOSITORY:TAG: push one OCI artifact, a layer per skill, and
tag it; a workspace then declares oci: REGISTRY/REPOSITORY:TAG, and oras pull
unpacks the same folders. Credentials come from the Docker configuration and its
credential helpers (docker login, oras login). Layers the registry has are not
sent again. With --sign --key FILE, the artifact is signed with the private key
(a cosign key, its password in $COSIGN_PASSWORD, or a PEM key) as cosign signs an
image, the signature attached as a referrer before the tag moves; a workspace
declares verify: {key: cosign.pub} to take nothing unsigned. Keyless signing is
cosign's: cosign sign REGISTRY/REPOSITORY@DIGEST after publishing.
Exit codes: 0 published, 2 invalid input or usage, 4 any other failure (a registry
that cannot be reached or refuses the push).`,
		Example: "  skillsync publish --well-known public\n" +
			"  skillsync publish --well-known public deploy review\n" +
			"  skillsync publish oci://registry.example.com/acme/skills:1.0\n" +
			"  skillsync publish --sign --key cosign.key oci://registry.example.com/acme/skills:1.0",
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var target string
			if len(args) > 0 && strings.HasPrefix(args[0], "oci://") {
				target, args = strings.TrimPrefix(args[0], "oci://"), args[1:]
			}
			if (site == "") == (target == "") {
				return usageError("publish needs one of --well-known DIR (the directory a web server serves) and oci://REGISTRY/REPOSITORY:TAG")
			}
			switch {
			case sign && target == "":
				return usageError("--sign signs an OCI artifact; a discovery index is published unsigned")
			case sign && keyFile == "":
				return usageError("--sign needs --key FILE, a private key (cosign generate-key-pair writes one); for keyless signing, publish, then run cosign sign on the digest printed")
			case keyFile != "" && !sign:
				return usageError("--key is the key --sign signs with; pass --sign too")
			}
			var key *signing.Key
			if sign {
				var err error
				if key, err = readSigningKey(keyFile); err != nil {
					return usageError("--key %s: %v", keyFile, err)
				}
			}
			var ref registry.OCIReference
			if target != "" {
				var err error
				if ref, err = registry.ParseOCIReference(target); err != nil {
					return usageError("%v", err)
				}
				if strings.HasPrefix(ref.Reference, "sha256:") {
					return usageError("oci://%s names a digest; publish to a tag, such as oci://%s/%s:1.0", target, ref.Registry, ref.Repository)
				}
			}
			reg, err := g.declarations()
			if err != nil {
				return err
			}
			skills, err := publishable(g, reg, args)
			if err != nil {
				return err
			}
			if target != "" {
				var documents []oci.Document
				if len(args) == 0 {
					if documents, err = publishableDocuments(g, reg); err != nil {
						return err
					}
				}
				return publishOCI(g, ref, skills, documents, key)
			}
			written, err := wellknown.Publish(g.sys, site, skills)
			if err != nil {
				return &exitError{exitFailure, err}
			}
			for _, p := range written {
				fmt.Fprintf(g.stdout, "wrote %s\n", filepath.Join(site, filepath.FromSlash(p)))
			}
			fmt.Fprintf(g.stdout, "published %d skill(s); serve %s at the root of a site, and declare index: https://HOST/%s in a workspace's spec.sources\n",
				len(skills), site, wellknown.IndexPath)
			return nil
		},
	}
	cmd.Flags().StringVar(&site, "well-known", "", "the directory to write the site into (made if missing)")
	cmd.Flags().BoolVar(&sign, "sign", false, "sign the OCI artifact with --key, as cosign signs an image")
	cmd.Flags().StringVar(&keyFile, "key", "", "the private key --sign signs with (a cosign key, its password in $COSIGN_PASSWORD, or a PEM key)")
	return cmd
}

// publishableDocuments are the registry files of reg, as they are on disk. A
// file with a Skill whose body or directory is another file is refused: a
// workspace that takes the file from the artifact has neither.
func publishableDocuments(g *globals, reg *registry.Registry) ([]oci.Document, error) {
	for _, s := range reg.Skills {
		if s.Origin == nil && (s.BodyPath != "" || (s.Dir != "" && slices.Contains(reg.Files, s.File()))) {
			return nil, usageError("%s: skill %s has its body or directory in another file, which a workspace taking %s from the artifact would lack; declare it under spec.skillDirs, or give its body inline, or name the skills to publish them alone", s.Pos(), s.Name, s.File())
		}
	}
	r, err := g.readOnly().Open(reg.Root)
	if err != nil {
		return nil, &exitError{exitFailure, err}
	}
	defer r.Close()
	var out []oci.Document
	for _, f := range reg.Files {
		data, err := r.ReadFile(f, 16<<20)
		if err != nil {
			return nil, &exitError{exitFailure, fmt.Errorf("read %s: %w", f, err)}
		}
		out = append(out, oci.Document{Path: filepath.ToSlash(f), Data: data})
	}
	return out, nil
}

// readSigningKey reads the private key in file.
func readSigningKey(file string) (*signing.Key, error) {
	dir, err := (workspacefs.OS{}).Open(filepath.Dir(file))
	if err != nil {
		return nil, workspacefs.Cause(err)
	}
	defer dir.Close()
	data, err := dir.ReadFile(filepath.Base(file), 1<<20)
	if err != nil {
		return nil, workspacefs.Cause(err)
	}
	return signing.ParsePrivateKey(data)
}

// publishOCI pushes skills and documents to ref, signed with key unless it is
// nil.
func publishOCI(g *globals, ref registry.OCIReference, skills []archive.SkillDir, documents []oci.Document, key *signing.Key) error {
	if g.offline {
		return usageError("publishing to a registry needs the network; --offline cannot go with it")
	}
	if len(skills)+len(documents) == 0 {
		return usageError("the workspace has no skill directory and no registry file to publish; nothing was pushed to %s", ref)
	}
	ctx, cancel := context.WithTimeout(context.Background(), oci.Timeout)
	defer cancel()
	// Pushing reads nothing from the cache.
	var signer *oci.Signer
	if key != nil {
		v, err := key.Verifier()
		if err != nil {
			return &exitError{exitFailure, err}
		}
		signer = &oci.Signer{
			Sign: func(manifestDigest string) ([]byte, error) {
				return key.Sign(ref.Registry+"/"+ref.Repository, manifestDigest)
			},
			Signs: func(bundle []byte, manifestDigest string) bool { return v.Verify(bundle, manifestDigest) == nil },
		}
	}
	pushed, err := (oci.Cache{}).Push(ctx, ref, skills, documents, signer)
	if err != nil {
		return &exitError{exitFailure, err}
	}
	fmt.Fprintf(g.stdout, "pushed %s: %d skill(s), %d registry file(s); %d layer(s) sent, %d already there; manifest %s\n",
		ref, len(skills), len(documents), pushed.Sent, pushed.Layers-pushed.Sent, pushed.Digest)
	if pushed.Signature != "" {
		fmt.Fprintf(g.stdout, "signed %s@%s: signature %s\n", ref.Registry+"/"+ref.Repository, pushed.Digest, pushed.Signature)
	}
	fmt.Fprintf(g.stdout, "declare oci: %s in a workspace's spec.sources\n", ref)
	return nil
}

// publishable are the skill directories of reg, named in names (all when
// none), read as they are on disk.
func publishable(g *globals, reg *registry.Registry, names []string) ([]archive.SkillDir, error) {
	var dirs []registry.Skill
	var have []string
	for _, s := range reg.Skills {
		if s.Dir != "" && s.Origin == nil {
			dirs = append(dirs, s)
			have = append(have, s.Name)
		}
	}
	for _, n := range names {
		if !slices.Contains(have, n) {
			return nil, usageError("%s is no skill directory of this workspace; these are: %s", n, strings.Join(have, ", "))
		}
	}
	r, err := g.readOnly().Open(reg.Root)
	if err != nil {
		return nil, &exitError{exitFailure, err}
	}
	defer r.Close()
	var out []archive.SkillDir
	for _, s := range dirs {
		if len(names) > 0 && !slices.Contains(names, s.Name) {
			continue
		}
		skillMD, files, err := registry.ReadSkillDir(r, s.Dir)
		if err != nil {
			return nil, &exitError{exitFailure, fmt.Errorf("read %s: %w", s.Dir, err)}
		}
		out = append(out, archive.SkillDir{Name: s.Name, Description: s.Spec.Description, SkillMD: skillMD, Files: files})
	}
	return out, nil
}
