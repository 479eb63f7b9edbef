#!/usr/bin/env bash
# Verify a kistore store without kistore: only git, sha256sum, jq, base64 and ssh-keygen
# (and bash with coreutils: mktemp, mkdir, head, wc, tr, fold, rm; grep and xargs).
#
#   scripts/verify-store.sh [-f ALLOWED_SIGNERS] [-o FILE] [REV]     (run inside the store)
#
# REV (default HEAD) selects the objects, attestation files and trust file; notes are read
# from refs/notes/kistore as they are now (as `kistore verify` reads them). Checks:
#   0. every file under store/ is a regular file (mode 100644) at a path of the layout
#      (docs/design.md: objects, metadata, names, forward records, group files,
#      attestations, the trust file and the ranking policy; nothing else);
#   1. every store/objects/sha256/XX/REST.json is a regular file whose sha256 is XX+REST;
#      every store/names/KIND/XX/NAME (names as paths) is a regular file at the shard XX of
#      sha256 of NAME, holding exactly `sha256:<64 hex>` and a newline, of a manifest whose
#      object's kind is KIND and whose metadata file's name is NAME; every
#      store/forward/sha256/XX/REST/RUN is a regular file listing, sorted, one a line, the
#      reference fields of the run RUN (whose object exists) that name XX+REST, no other;
#      every store/groups/sha256/XX/REST/RUN (comparison groups as paths) is a regular file
#      whose sha256 is XX+REST (the comparison key), of a run RUN whose object exists, and
#      holding exactly its key object's canonical bytes (jq: keys sorted, no spaces);
#      and the other way: each manifest (object and metadata, of a kind and a valid name)
#      has its names file, each run's reference to a digest with no object a record, each
#      run whose comparison key is known (its protocol, and environment when the key
#      names the hardware, stored) a group file;
#   2. every store/attestations/sha256/XX/REST/NAME.json: sha256 of the file is NAME, it is
#      canonical (jq writes it again as RFC 8785 does and the bytes come back), and object
#      XX+REST is in the store;
#   3. every attestation bundle (notes and files): one signature, payloadType
#      application/vnd.in-toto+json, a payload about the object it is attached to; when its
#      signature is SSHSIG, `ssh-keygen -Y verify` (namespace kernelindex-attestation) must
#      accept it over the DSSE PAE of the payload under the bundled key; and a rerun or
#      withdrawal by a key listed in ALLOWED_SIGNERS must verify there with principal
#      `rerun` or `maintainer` at the date its payload states (-Overify-time).
#   4. the notes tree of refs/notes/kistore holds one path per annotated object, each a
#      blob of mode 100644 named by the id in lowercase hex under 2-digit fan-out
#      directories (KI424: git reads every fan-out form of an id, concatenated).
# ALLOWED_SIGNERS defaults to one built from store/trust/keys.json at REV with jq, byte for
# byte what `kistore trust export --allowed-signers` writes (-o FILE keeps a copy); each
# key's keyid must be its `ssh-keygen -l` fingerprint.
# Raw Ed25519 DSSE signatures (kistore's --key PRIVATE) are counted but cannot be checked
# with ssh-keygen. Exit 0 when all holds, 1 with one "FAIL:" line per problem, 2 on usage.
# docs/attestations.md ("Verify without kistore") says what only `kistore verify` checks.
#
# It starts a process per check, not per file: REV's files are listed once; one jq matches
# every path against the layout (0); one sha256sum hashes every object file (1: the work
# tree's copy where `git hash-object --no-filters` says it is REV's blob byte for byte, any
# other blob from git, one by one; a group file's blob, shared by its group, once); one
# `git cat-file --batch` hands every object, metadata file, names file, forward record and
# group file to one jq, which holds them to the manifests both ways (1d). Attestations (2,
# 3) are checked one by one. The work tree must not change while it runs. In a partial
# clone (`--filter=blob:none`) the blobs it lacks are fetched first, in one `git fetch`.
set -euo pipefail

NS=kernelindex-attestation
PAYLOAD_TYPE=application/vnd.in-toto+json
NOTES_REF=refs/notes/kistore
PREDICATE_BASE=https://kernelindex.dev/attestation/

usage() { echo "usage: $0 [-f ALLOWED_SIGNERS] [-o FILE] [REV]" >&2; exit 2; }
allowed="" keep="" rev=HEAD
while getopts "f:o:h" opt; do
  case $opt in f) allowed=$OPTARG ;; o) keep=$OPTARG ;; *) usage ;; esac
done
shift $((OPTIND - 1))
[ $# -le 1 ] || usage
[ $# -eq 0 ] || rev=$1
for tool in git sha256sum jq base64 ssh-keygen grep xargs; do
  command -v "$tool" >/dev/null || { echo "verify-store: $tool is not installed" >&2; exit 2; }
done
commit=$(git rev-parse --verify -q "$rev^{commit}") \
  || { echo "verify-store: $rev is not a commit of this repository" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0 objects=0 bundles=0 sshsigs=0 raw=0
# fail MESSAGE: one line each (a newline in a file name is written as \n).
fail() { local message=$*; echo "FAIL: ${message//$'\n'/\\n}"; failures=$((failures + 1)); }

# REV's files under store/, listed once: path, mode, type and blob id of each.
git ls-tree -r -z --full-tree "$commit" -- store > "$tmp/listing"
declare -a paths=() modes=() types=() blobs=()
while IFS= read -r -d '' record; do
  read -r mode type blob <<<"${record%%$'\t'*}"
  paths+=("${record#*$'\t'}") modes+=("$mode") types+=("$type") blobs+=("$blob")
done < "$tmp/listing"

# -- a partial clone: the blobs REV lists under store/ that it lacks, in one `git fetch` ----
# In a blob-less clone (`git clone --filter=blob:none`) git fetches a missing blob when a
# command reads it: one `git fetch` (a connection to the remote) per file read below. They
# are fetched here first, all in one, as git's own lazy fetch asks for one (kistore does
# the same: kistore/git/blobs.py fetch_blobs). A blob the remote cannot give stays missing
# and is named below.
promisor=""
while read -r key value; do  # remote.<name>.promisor true, as `git clone --filter` sets it
  if [ "${value,,}" = true ]; then promisor=${key#remote.} promisor=${promisor%.promisor}; break; fi
done < <(git config --get-regexp '^remote\..*\.promisor$' 2>/dev/null || true)
[ -n "$promisor" ] || promisor=$(git config --get extensions.partialClone 2>/dev/null || true)
if [ -n "$promisor" ] && [ ${#blobs[@]} -gt 0 ]; then
  printf '%s\n' "${blobs[@]}" > "$tmp/listed-blobs"
  { git rev-list --objects --no-walk --missing=print "$commit" \
      | grep '^?' | grep -o '[0-9a-f]*' | grep -Fx -f "$tmp/listed-blobs"; } \
    > "$tmp/missing-blobs" || true
  if [ -s "$tmp/missing-blobs" ]; then
    git -c fetch.negotiationAlgorithm=noop fetch -q "$promisor" --no-tags \
      --no-write-fetch-head --recurse-submodules=no --filter=blob:none --stdin \
      < "$tmp/missing-blobs" 2>/dev/null || true
  fi
fi

# sha256_of[FILE]: sha256 of a file, computed for many files by one sha256sum (through xargs).
declare -A sha256_of=()
# sums DIR FILE...: sha256_of[FILE] for each DIR/FILE it can read (FILE: a path of the layout
# or a name of ours, as sha256sum prints it back).
sums() {
  local dir=$1 sum file
  shift
  [ $# -gt 0 ] || return 0
  (cd "$dir" && printf '%s\0' "$@" | xargs -0 sha256sum -- 2>/dev/null) > "$tmp/sums" || true
  while read -r sum file; do sha256_of[$file]=$sum; done < "$tmp/sums"
}
# sums_of_blobs PATHS BLOBS (names of two arrays): sha256_of[PATH] of each blob of REV. A copy
# in the work tree is hashed when `git hash-object --no-filters` (one process for all) says it
# is that blob byte for byte; any other blob (another REV, a file edited or missing, a bare
# repository), or a copy sha256sum could not read, one by one from git cat-file.
top=$(git rev-parse --show-toplevel 2>/dev/null) || top=""
sums_of_blobs() {
  local -n at=$1 blob_of=$2
  local -a copies=() ids=() same=()
  local i j sum
  if [ -n "$top" ]; then
    for i in "${!at[@]}"; do
      if [ -f "$top/${at[i]}" ] && [ ! -L "$top/${at[i]}" ]; then copies+=("$i"); fi
    done
  fi
  if [ ${#copies[@]} -gt 0 ]; then
    for i in "${copies[@]}"; do printf '%s\n' "${at[i]}"; done > "$tmp/copies"
    (cd "$top" && git hash-object --no-filters --stdin-paths) < "$tmp/copies" > "$tmp/ids" \
      || true
    mapfile -t ids < "$tmp/ids"
    for j in "${!copies[@]}"; do
      i=${copies[j]}
      if [ "${ids[j]:-}" = "${blob_of[i]}" ]; then same+=("${at[i]}"); fi
    done
    sums "$top" "${same[@]}"
  fi
  for i in "${!at[@]}"; do
    if [ -z "${sha256_of[${at[i]}]:-}" ]; then
      if sum=$(git cat-file blob "${blob_of[i]}" 2>/dev/null | sha256sum); then
        sha256_of[${at[i]}]=${sum%% *}
      else  # missing, or a promisor remote that cannot hand it over
        sha256_of[${at[i]}]=unreadable
      fi
    fi
  done
}

# name_ok NAME: a metadata.name: [a-z0-9], then [a-z0-9.-], ending in [a-z0-9], at most 253
# characters (a length, not {0,251}: bash compiles a regex anew at each match, that one slowly).
name_ok() { [[ $1 =~ ^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$ ]] && [ ${#1} -le 253 ]; }

# -- 0. layout: every file under store/ is a regular file at a path of the layout ---------
# One jq matches every path of the listing against the layout (in bash, compiling this regex
# at each match would be most of the time the script takes).
kinds_alt='Workload|BenchmarkProtocol|ExecutionEnvironment|Implementation|BenchmarkRun'
layout_re="store/(trust/keys\.json|policy/ranking\.json"
layout_re+="|(objects|metadata)/sha256/[0-9a-f]{2}/[0-9a-f]{62}\.json"
layout_re+="|attestations/sha256/[0-9a-f]{2}/[0-9a-f]{62}/[0-9a-f]{64}\.json"
layout_re+="|names/($kinds_alt)/[0-9a-f]{2}/[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?"
layout_re+="|forward/sha256/[0-9a-f]{2}/[0-9a-f]{62}/[0-9a-f]{64}"
layout_re+="|groups/sha256/[0-9a-f]{2}/[0-9a-f]{62}/[0-9a-f]{64})"
jq -Rrs --arg layout "\\A$layout_re\\z" '
    split("\u0000")[:-1] | to_entries[]                    # "MODE TYPE BLOB<tab>PATH" each
    | select(.value | split("\t")[1:] | join("\t") | test($layout) | not) | .key' \
  < "$tmp/listing" > "$tmp/off_layout"
declare -A off_layout=()
while read -r i; do off_layout[$i]=1; done < "$tmp/off_layout"
for i in "${!paths[@]}"; do
  path=${paths[i]} mode=${modes[i]} type=${types[i]}
  printf -v shown '%q' "$path"  # a name with control characters or a newline, escaped
  if [ "$mode" != 100644 ] || [ "$type" != blob ]; then
    fail "$shown: not a regular file of mode 100644 (mode $mode $type)"
  fi
  [ -z "${off_layout[$i]:-}" ] || fail "$shown: not a path of the store layout"
done

# Every file 1b-1d read goes through one `git cat-file --batch` to one jq: a line per file
# here, "BLOB WHAT ARGS" (WHAT: objects HEX, metadata HEX, names PATH KIND NAME, forward
# PATH TARGET RUN or groups PATH KEY RUN).
: > "$tmp/batch"

# -- 1. objects -------------------------------------------------------------------------
declare -A object_of_blob=() have_object=() unreadable=()
object_paths=() object_blobs=() object_digests=()
for i in "${!paths[@]}"; do
  path=${paths[i]} mode=${modes[i]} type=${types[i]} blob=${blobs[i]}
  [[ $path == store/objects/* ]] || continue
  rest=${path#store/objects/sha256/}
  digest=${rest%%/*}${rest#*/}
  digest=${digest%.json}
  if [ "$mode" != 100644 ] && [ "$mode" != 100755 ] || [ "$type" != blob ]; then
    fail "$path: not a regular file (mode $mode $type)"; continue
  fi
  if [ -n "${off_layout[$i]:-}" ]; then  # (0.: the layout's object paths are XX/REST.json)
    fail "$path: not an object path (store/objects/sha256/XX/REST.json)"; continue
  fi
  object_paths+=("$path") object_blobs+=("$blob") object_digests+=("$digest")
  object_of_blob[$blob]=$digest
  have_object[$digest]=1
  objects=$((objects + 1))
  echo "$blob objects $digest" >> "$tmp/batch"
done
sums_of_blobs object_paths object_blobs
for i in "${!object_paths[@]}"; do
  path=${object_paths[i]} digest=${object_digests[i]}
  actual=${sha256_of[$path]}
  if [ "$actual" = unreadable ]; then
    fail "$path: git cannot hand over its blob ${object_blobs[i]} (missing, or not fetched)"
    unreadable[$path]=1
  elif [ "$actual" != "$digest" ]; then
    fail "$path: sha256 of the file is $actual, not its name"
  fi
done
for i in "${!paths[@]}"; do  # the metadata files at a path of the layout, for 1b and 1d
  path=${paths[i]} mode=${modes[i]} type=${types[i]} blob=${blobs[i]}
  if [[ $path == store/metadata/* ]] && [ -z "${off_layout[$i]:-}" ] \
      && [[ $mode == 100644 || $mode == 100755 ]] && [ "$type" = blob ]; then
    rest=${path#store/metadata/sha256/}
    echo "$blob metadata ${rest:0:2}${rest:3:62}" >> "$tmp/batch"
  fi
done

# -- 1b. names files: store/names/KIND/XX/NAME holds the digest of KIND/NAME's manifest ---
# -- 1c. forward records: store/forward/sha256/XX/REST/RUN lists RUN's fields naming XX+REST
# -- 1e. group files: store/groups/sha256/XX/REST/RUN holds RUN's key object, sha256 XX+REST
# Here their paths (a names file's shard: sha256 of the name, one sha256sum for all; a
# group file's sha256, one per blob: a group's files share one); their bytes in 1d.
names=0 forward=0 groups=0
declare -A group_rep=()
group_reps=() group_rep_blobs=() group_at=()
mkdir "$tmp/names"
sharded=() kind_of=() shard_of=() name_of=()
for i in "${!paths[@]}"; do
  path=${paths[i]} mode=${modes[i]} type=${types[i]}
  case $path in
    store/names/*) names=$((names + 1)) ;;
    store/forward/*) forward=$((forward + 1)) ;;
    store/groups/*) groups=$((groups + 1)) ;;
    *) continue ;;
  esac
  if [ "$mode" != 100644 ] || [ "$type" != blob ]; then
    fail "$path: not a regular file of mode 100644 (mode $mode $type)"; continue
  fi
  if [[ $path == store/groups/* ]]; then
    if [ -n "${off_layout[$i]:-}" ]; then  # (0.: the layout's group paths are XX/REST/RUN)
      fail "$path: not a group file path (store/groups/sha256/XX/REST/RUN)"; continue
    fi
    rest=${path#store/groups/sha256/}
    echo "${blobs[i]} groups $path ${rest:0:2}${rest:3:62} ${rest:66:64}" >> "$tmp/batch"
    if [ -z "${group_rep[${blobs[i]}]:-}" ]; then  # the first file of each blob is hashed
      group_rep[${blobs[i]}]=$path
      group_reps+=("$path") group_rep_blobs+=("${blobs[i]}")
    fi
    group_at+=("$i")
    continue
  fi
  if [[ $path == store/forward/* ]]; then
    if [ -n "${off_layout[$i]:-}" ]; then  # (0.: the layout's record paths are XX/REST/RUN)
      fail "$path: not a forward record path (store/forward/sha256/XX/REST/RUN)"; continue
    fi
    rest=${path#store/forward/sha256/}
    echo "${blobs[i]} forward $path ${rest:0:2}${rest:3:62} ${rest:66:64}" >> "$tmp/batch"
    continue
  fi
  rest=${path#store/names/}
  if [[ $rest =~ ^([A-Z][A-Za-z]*)/([0-9a-f]{2})/([^/]+)$ ]]; then
    kind_of[i]=${BASH_REMATCH[1]} shard_of[i]=${BASH_REMATCH[2]} name_of[i]=${BASH_REMATCH[3]}
  fi
  if [ -z "${name_of[i]:-}" ] || ! name_ok "${name_of[i]}"; then
    fail "$path: not a names path (store/names/KIND/XX/NAME)"; continue
  fi
  printf '%s' "${name_of[i]}" > "$tmp/names/$i"
  sharded+=("names/$i")
done
sums "$tmp" "${sharded[@]}"
for key in "${sharded[@]}"; do
  i=${key#names/}
  path=${paths[i]} kind=${kind_of[i]} shard=${shard_of[i]} name=${name_of[i]}
  hashed=${sha256_of[$key]:-$(printf '%s' "$name" | sha256sum)}
  if [ "${hashed:0:2}" = "$shard" ]; then
    echo "${blobs[i]} names $path $kind $name" >> "$tmp/batch"
  else
    fail "$path: shard $shard is not the first byte of sha256 of the name (${hashed:0:2})"
  fi
done

sums_of_blobs group_reps group_rep_blobs
for i in "${group_at[@]}"; do
  path=${paths[i]}
  rest=${path#store/groups/sha256/}
  actual=${sha256_of[${group_rep[${blobs[i]}]}]}
  if [ "$actual" = unreadable ]; then
    fail "$path: git cannot hand over its blob ${blobs[i]} (missing, or not fetched)"
    unreadable[$path]=1
  elif [ "$actual" != "${rest:0:2}${rest:3:62}" ]; then
    fail "$path: sha256 of the file is $actual, not the comparison key its directory names"
  fi
done

# -- 1d. names files, forward records and group files agree with the manifests, both ways -
# One rule of two cases, in jq: each file that is there says what the manifests say (a
# names file: exactly `sha256:<64 hex>` and a newline, of a manifest with a metadata file
# whose name is NAME and an object whose kind is KIND; a record: the reference fields,
# sorted, one a line, of the run RUN (whose object exists) that name TARGET, no other; a
# group file: the canonical bytes of the key object of the run RUN, whose key is known); and
# each file the manifests need is there (each manifest, object and metadata, of a kind and a
# valid name, its names file; each run's reference to a digest with no object, a record
# listing it; each run whose key is known, a group file holding its key object). The files come from `git cat-file --batch`, each after a line "NONCE WHAT
# ARGS" whose NONCE is random (no file's bytes can hold it): a file is the bytes up to the
# next such line (git ends each file with one more newline).
nonce=$(head -c 32 /dev/urandom | sha256sum)
nonce=${nonce%% *}
# RFC 8785 bytes of JSON without numbers (a key object, an attestation bundle): keys sorted,
# no spaces, strings as tojson writes them except U+007F, which RFC 8785 writes raw and tojson
# as \u007f (each string is written by tojson between its U+007F characters). Keys sort by
# code point, RFC 8785 by UTF-16 unit: they differ only for keys above U+FFFF, which neither
# holds. A number is written by tojson (not RFC 8785's form): neither holds one either.
JQ_CANONICAL='
def canonical_string: "\"" + (split("\u007f") | map(tojson | .[1:-1]) | join("\u007f")) + "\"";
def canonical:
  if type == "object" then
    "{" + (to_entries | sort_by(.key)
           | map((.key | canonical_string) + ":" + (.value | canonical)) | join(",")) + "}"
  elif type == "array" then "[" + (map(canonical) | join(",")) + "]"
  elif type == "string" then canonical_string
  else tojson end;
'
# shellcheck disable=SC2016  # jq's $variables
JQ_BOTH_WAYS="$JQ_CANONICAL"'
def field($f): if type == "object" then .[$f] else null end;
def name_ok: type == "string" and test("\\A[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?\\z");
def fails(messages): [messages | split("\u0000") | join("")];  # one FAIL line each

# The files of the stream: {tag: [WHAT, ARGS...], text: their bytes as text}. The stream
# is one string (jq -s), split at each "\nNONCE " (the newline git writes after a file,
# then the next header): linear in its size (a file of many lines gathered line by line
# cost jq a copy a line: a 200 KB names file of newlines took minutes).
def files:
  (try input catch "") as $s
  | if $s == "" then empty else
      $s | ltrimstr($nonce + " ") | rtrimstr("\n") | split("\n" + $nonce + " ")[]
      | (split("\n")[0]) as $args
      | {tag: ($args | split(" ")), text: .[($args | length) + 1:]}
    end;

# both_ways(FILES; JUDGE; NEEDS): the failures JUDGE finds in each file ({fails, gives}),
# then those of each need ({key, fail}) no file gives the key of.
def both_ways(files; judge; needs):
  [files | judge] as $judged
  | ($judged[] | .fails[]),
    ((reduce ($judged[] | .gives[]) as $key ({}; .[$key] = true)) as $given
     | needs | select($given[.key] | not) | .fail);

# The names case: NAMES FILE: {tag: ["names", PATH, KIND, NAME], text}; KEY: KIND/NAME.
def judge_name($m):
  (.tag | {path: .[1], kind: .[2], name: .[3]}) as $f
  | if (.text | test("\\Asha256:[0-9a-f]{64}\n\\z") | not) then
      {fails: fails("\($f.path): does not hold exactly sha256:<64 hex> and a newline"),
       gives: []}
    else .text[7:71] as $hex | ($m[$hex] // {}) as $of
    | if ($of.name | type) != "string" then
        {fails: fails("\($f.path): sha256:\($hex) has no metadata file with a name"
                      + " (store/metadata/sha256/\($hex[0:2])/\($hex[2:]).json)"), gives: []}
      else
        {fails: (fails(if $of.name != $f.name then
                         "\($f.path): the metadata of sha256:\($hex) names \($of.name), not \($f.name)"
                       else empty end)
                 + fails(if (($of.kind | strings) // "") != $f.kind then
                         "\($f.path): the object sha256:\($hex) is of kind \(($of.kind | strings) // "" | if . == "" then "(none)" else . end), not \($f.kind)"
                       else empty end)),
         gives: ["\($f.kind)/\($f.name)"]}
      end
    end;
def need_names($m):
  $m | to_entries[]
  | select(.value.object and (.value.kind | type == "string" and test($kinds))
           and (.value.name | name_ok))
  | {key: "\(.value.kind)/\(.value.name)",
     fail: "sha256:\(.key) (\(.value.kind)/\(.value.name)) has no names file under store/names/\(.value.kind)/"};

# The forward case: RECORD: {tag: ["forward", PATH, TARGET, RUN], text}; KEY: TARGET/RUN/FIELD.
def judge_record($m):
  (.tag | {path: .[1], target: .[2], run: .[3]}) as $f
  | if .text == "" or (.text | test("\\A(environmentDigest\n)?(implementationDigest\n)?(protocolDigest\n)?(workloadDigest\n)?\\z") | not) then
      {fails: fails("\($f.path): does not hold reference fields, sorted, one a line ending in a newline"),
       gives: []}
    elif ($m[$f.run].object | not) then
      {fails: fails("\($f.path): the run sha256:\($f.run) has no object"), gives: []}
    else
      ([$m[$f.run].spec | objects | to_entries[] | select(.value == "sha256:\($f.target)")
        | .key + "\n"] | sort | add // "") as $naming
      | {fails: fails(if $naming != .text then
                        "\($f.path): the run sha256:\($f.run) names sha256:\($f.target) in other fields than listed"
                      else empty end),
         gives: [.text | rtrimstr("\n") | split("\n")[] | "\($f.target)/\($f.run)/\(.)"]}
    end;
def need_records($m):
  $m | to_entries[] | .key as $run
  | .value.spec | objects | to_entries[]
  | select((.key | test("\\A(workload|protocol|environment|implementation)Digest\\z"))
           and (.value | type == "string" and test("\\Asha256:[0-9a-f]{64}\\z")))
  | [.key, .value[7:]] as [$field, $target]
  | select($m[$target].object | not)
  | {key: "\($target)/\($run)/\($field)",
     fail: "the run sha256:\($run) names sha256:\($target) (\($field)), which is not in the store, and no forward record lists it"};

# The group case: GROUP FILE: {tag: ["groups", PATH, KEY, RUN], text}; KEY: RUN/BYTES. That
# sha256 of the bytes is KEY, bash checked (1e). A run'"'"'s key object: the fields its protocol
# lists (comparability.keyFields, default all five) of family and primaryStatistic (the
# protocol'"'"'s), hardwareProduct (its environment'"'"'s hardware.product), protocolDigest and
# workloadDigest (the run'"'"'s); unknown (null) when the protocol, or a field it needs, is not
# stored (kistore.core.comparison.key_object). Its bytes: keys sorted, no spaces (RFC 8785
# for an object of strings).
def key_object($m; $spec):
  ($m[$spec | field("protocolDigest") | strings | .[7:]] // {}) as $p
  | ($m[$spec | field("environmentDigest") | strings | .[7:]] // {}) as $e
  | if $p.kind != "BenchmarkProtocol" or ($p.keyspec | type) != "object" then null else
      ($p.keyspec | field("comparability")) as $c
      | (if $e.kind == "ExecutionEnvironment" then $e.keyspec else null end) as $env
      | {family: ($c | field("family")),
         hardwareProduct: ($env | field("hardware") | field("product")),
         primaryStatistic: ($p.keyspec | field("measurement") | field("primaryStatistic")),
         protocolDigest: ($spec | field("protocolDigest")),
         workloadDigest: ($spec | field("workloadDigest"))} as $all
      | (($c | field("keyFields")) // ($all | keys)) as $fields
      | ($all | with_entries(select(.key as $k | $fields | index($k)))) as $obj
      | if ($obj | any(.[]; . == null)) then null else $obj end
    end;
def key_bytes: canonical;  # the key object holds only strings
def judge_group($m):
  (.tag | {path: .[1], key: .[2], run: .[3]}) as $f
  | if ($m[$f.run].object | not) or $m[$f.run].kind != "BenchmarkRun" then
      {fails: fails("\($f.path): the run sha256:\($f.run) has no object of a BenchmarkRun"),
       gives: []}
    else key_object($m; $m[$f.run].spec) as $obj
    | if $obj == null then
        {fails: fails("\($f.path): the comparison key of the run sha256:\($f.run) is not known (its protocol, or the environment its key names, is not stored)"),
         gives: []}
      elif ($obj | key_bytes) != .text then
        {fails: fails("\($f.path): does not hold exactly the key object of the run sha256:\($f.run) (\($obj | key_bytes))"),
         gives: []}
      else {fails: [], gives: ["\($f.run)/\(.text)"]}
      end
    end;
def need_groups($m):
  $m | to_entries[] | select(.value.object and .value.kind == "BenchmarkRun") | .key as $run
  | key_object($m; .value.spec) | select(. != null) | key_bytes
  | {key: "\($run)/\(.)",
     fail: "the run sha256:\($run) has a known comparison key, and no group file under store/groups/sha256/ holds its key object \(.)"};

[files] as $files
| if ($files | length) != $asked then
    "git cat-file gave \($files | length) of the \($asked) files asked\u0000"
  else
    # The manifests, by hex: {object, kind, spec (of a run), name (of its metadata file)}.
    (reduce ($files[] | select(.tag[0] == "objects" or .tag[0] == "metadata")) as $file ({};
       ($file.text | try fromjson catch null) as $doc
       | if $file.tag[0] == "metadata" then .[$file.tag[1]].name = ($doc | field("name"))
         else .[$file.tag[1]] += {object: true, kind: ($doc | field("kind")),
                                  spec: (if ($doc | field("kind")) == "BenchmarkRun"
                                         then $doc | field("spec") else null end),
                                  keyspec: (if ($doc | field("kind")) as $k
                                               | $k == "BenchmarkProtocol"
                                                 or $k == "ExecutionEnvironment"
                                            then $doc | field("spec") else null end)}
         end)) as $m
    | (both_ways($files[] | select(.tag[0] == "names"); judge_name($m); need_names($m)),
       both_ways($files[] | select(.tag[0] == "forward"); judge_record($m); need_records($m)),
       both_ways($files[] | select(.tag[0] == "groups"); judge_group($m); need_groups($m)))
    | . + "\u0000"
  end'
kinds_re='\A('"$kinds_alt"')\z'
# A blob git cannot hand over is named here and left out of the batch (`--batch` would
# write "ID missing" into the stream, inside the file before it).
git cat-file --batch-check='%(objectname) %(rest)' < "$tmp/batch" > "$tmp/present" \
  2>/dev/null || true
mapfile -t asked < "$tmp/batch"
mapfile -t present < "$tmp/present"
: > "$tmp/batch-present"
if [ "$(< "$tmp/batch")" = "$(< "$tmp/present")" ]; then
  asked=()  # every blob is here (the usual case): no line-by-line pass
  cp "$tmp/batch" "$tmp/batch-present"
fi
for k in "${!asked[@]}"; do
  read -r blob what args <<<"${asked[k]}"
  if [ "${present[k]:-}" = "$blob $what $args" ]; then
    printf '%s\n' "${asked[k]}" >> "$tmp/batch-present"
  else
    case $what in
      objects|metadata) path="store/$what/sha256/${args:0:2}/${args:2}.json" ;;
      *) path=${args%% *} ;;
    esac
    [ -n "${unreadable[$path]:-}" ] \
      || fail "$path: git cannot hand over its blob $blob (missing, or not fetched)"
  fi
done
git cat-file --batch="$nonce %(rest)" < "$tmp/batch-present" \
  | jq -njRs --arg nonce "$nonce" --arg kinds "$kinds_re" \
       --argjson asked "$(wc -l < "$tmp/batch-present")" "$JQ_BOTH_WAYS" > "$tmp/verdicts"
while IFS= read -r -d '' verdict; do fail "$verdict"; done < "$tmp/verdicts"

# -- 2. trust as allowed_signers ------------------------------------------------------------
# RFC 3339 -> epoch seconds (floor) and whether a fraction of a second was given.
JQ_TIME='
def instant: capture("^(?<d>[0-9]{4}-[0-9]{2}-[0-9]{2})[Tt](?<t>[0-9]{2}:[0-9]{2}:[0-9]{2})(?<f>[.][0-9]+)?(?<z>[Zz]|[+-][0-9]{2}:[0-9]{2})$") as $c
  | {s: (($c.d + "T" + $c.t + "Z" | strptime("%Y-%m-%dT%H:%M:%SZ") | mktime)
         - (if ($c.z | ascii_downcase) == "z" then 0
            else (($c.z[1:3] | tonumber) * 3600 + ($c.z[4:6] | tonumber) * 60)
                 * (if $c.z[0:1] == "+" then 1 else -1 end) end)),
     frac: (($c.f // "") | test("[1-9]"))};
def sshtime: gmtime | strftime("%Y%m%d%H%M%SZ");'
if [ -z "$allowed" ]; then
  allowed=$tmp/allowed_signers
  {
    echo '# OpenSSH allowed_signers, exported by `kistore trust export --allowed-signers` from'
    echo "# store/trust/keys.json. Principals: the keyid and the key's roles. Check a signature:"
    echo '#   ssh-keygen -Y verify -f FILE -I PRINCIPAL -n kernelindex-attestation -s SIG < PAE'
  } > "$allowed"
  if git cat-file -e "$commit:store/trust/keys.json" 2>/dev/null; then
    if ! git cat-file blob "$commit:store/trust/keys.json" | jq -r --arg ns "$NS" "$JQ_TIME"'
        .keys | sort_by(.keyid)[]
        | "# \(.keyid):" + (if (.comment // "") == "" then ""
                            else " " + (.comment | gsub("[[:cntrl:]]"; " ")) end),
          ([.keyid] + .roles | join(",")) + " "
          + ([ "namespaces=\"\($ns)\"" ]
             + (if .validFrom then [.validFrom | instant
                  | "valid-after=\"\(if .frac then .s + 1 else .s end | sshtime)\""] else [] end)
             + ([.validUntil, .revokedAt] | map(select(.) | instant | .s) | if length > 0
                  then ["valid-before=\"\(min - 1 | sshtime)\""] else [] end)
             | join(","))
          + " " + .publicKey' >> "$allowed"; then
      fail "store/trust/keys.json: not a trust file jq can read"
    fi
    # Each keyid must be the fingerprint of its key (kistore: KI309).
    while read -r keyid type key; do
      printf '%s %s\n' "$type" "$key" > "$tmp/trusted.pub"
      fp=$(ssh-keygen -l -f "$tmp/trusted.pub" 2>/dev/null) || fp="unreadable"
      read -r _ fp _ <<<"$fp"
      [ "$fp" = "$keyid" ] \
        || fail "store/trust/keys.json: keyid $keyid is not the fingerprint of its publicKey ($fp)"
    done < <(git cat-file blob "$commit:store/trust/keys.json" \
             | jq -r '.keys[]? | "\(.keyid) \(.publicKey)"' 2>/dev/null)
  fi
fi
[ -z "$keep" ] || cp "$allowed" "$keep"

# -- 3. attestations ----------------------------------------------------------------------
# check_bundle FILE SUBJECT WHERE: one bundle (its bytes in FILE) attached to SUBJECT (hex).
check_bundle() {
  local file=$1 subject=$2 where=$3 fields payload_type nsig sig key keyid type
  bundles=$((bundles + 1))
  if ! fields=$(jq -er '
      select(type == "object" and (keys == ["dsseEnvelope", "verificationMaterial"])
             and (.dsseEnvelope | type == "object"
                  and keys == ["payload", "payloadType", "signatures"])
             and (.verificationMaterial | type == "object" and keys == ["publicKey"])
             and (.dsseEnvelope.signatures | type == "array"))
      | [.dsseEnvelope.payloadType, (.dsseEnvelope.signatures | length),
         (.dsseEnvelope.signatures[0].sig // ""), .verificationMaterial.publicKey,
         .dsseEnvelope.payload] | @tsv' "$file" 2>/dev/null); then
    fail "$where: not an attestation bundle (dsseEnvelope, verificationMaterial)"; return
  fi
  IFS=$'\t' read -r payload_type nsig sig key payload <<<"$fields"
  [ "$payload_type" = "$PAYLOAD_TYPE" ] \
    || { fail "$where: payloadType is not $PAYLOAD_TYPE"; return; }
  [ "$nsig" = 1 ] || { fail "$where: $nsig signatures, expected exactly one"; return; }
  if ! tr '_-' '/+' <<<"$payload" | base64 -d > "$tmp/payload" 2>/dev/null; then
    fail "$where: the payload is not base64"; return
  fi
  if ! type=$(jq -er --arg s "$subject" --arg base "$PREDICATE_BASE" '
      select(._type == "https://in-toto.io/Statement/v1" and (.subject | length) == 1
             and .subject[0].digest.sha256 == $s)
      | .predicateType | ltrimstr($base) | rtrimstr("/v1")' "$tmp/payload" 2>/dev/null); then
    fail "$where: the payload is not an in-toto Statement about $subject it is attached to"
    return
  fi
  if [[ $sig != U1NIU0lH* ]]; then  # base64 of "SSHSIG"
    raw=$((raw + 1)); return
  fi
  sshsigs=$((sshsigs + 1))
  { printf 'DSSEv1 %d %s %d ' ${#PAYLOAD_TYPE} "$PAYLOAD_TYPE" "$(wc -c < "$tmp/payload")"
    cat "$tmp/payload"; } > "$tmp/pae"
  { echo "-----BEGIN SSH SIGNATURE-----"; tr '_-' '/+' <<<"$sig" | fold -w 70
    echo "-----END SSH SIGNATURE-----"; } > "$tmp/sig"
  printf '%s\n' "$key" > "$tmp/key.pub"
  keyid=$(ssh-keygen -l -f "$tmp/key.pub" 2>/dev/null) \
    || { fail "$where: the bundled public key is unreadable"; return; }
  read -r _ keyid _ <<<"$keyid"
  # The signature, under the bundled key (kistore: KI301 when it fails).
  printf '%s namespaces="%s" %s\n' "$keyid" "$NS" "$key" > "$tmp/signer"
  if ! said=$(ssh-keygen -Y verify -f "$tmp/signer" -I "$keyid" -n "$NS" -s "$tmp/sig" \
                < "$tmp/pae" 2>&1); then
    fail "$where: $type by $keyid: ssh-keygen -Y verify refuses the signature (${said//$'\n'/; })"
    return
  fi
  # A role claim by a trusted key, at the date the payload states, or at the key's
  # valid-after when later (kistore: KI302). kistore judges validFrom at the time the
  # attestation entered the repository, which this script does not know: a payload dated
  # before validFrom that entered after it counts there, so it must not FAIL here.
  local role=""
  case $type in rerun) role=rerun ;; withdrawal) role=maintainer ;; esac
  local key_type key_b64
  read -r key_type key_b64 _ <<<"$key"
  [ -n "$role" ] || return 0
  grep -v '^[[:space:]]*#' "$allowed" | grep -qF -- " $key_type $key_b64" || return 0
  local when
  when=$(jq -r "$JQ_TIME"'[.predicate.observedAt, .predicate.createdAt]
                | map(select(type == "string") | instant | .s) | max // now | floor | sshtime' \
         "$tmp/payload")
  local after
  while IFS= read -r after; do  # same width (YYYYMMDDHHMMSSZ): compared as strings
    [[ $after > $when ]] && when=$after
  done < <(grep -v '^[[:space:]]*#' "$allowed" | grep -F -- " $key_type $key_b64" \
           | grep -o 'valid-after="[0-9]\{14\}Z"' | cut -d'"' -f2)
  if ! said=$(ssh-keygen -Y verify -f "$allowed" -I "$role" -n "$NS" -s "$tmp/sig" \
                -Overify-time="$when" < "$tmp/pae" 2>&1); then
    fail "$where: $type by $keyid: allowed_signers does not accept it as $role at $when (${said//$'\n'/; })"
  fi
}

for i in "${!paths[@]}"; do
  path=${paths[i]} type=${types[i]} blob=${blobs[i]}
  [[ $path == store/attestations/* ]] || continue
  rest=${path#store/attestations/sha256/}
  if [ "$type" != blob ] || ! [[ $rest =~ ^([0-9a-f]{2})/([0-9a-f]{62})/([0-9a-f]{64})\.json$ ]]; then
    fail "$path: not an attestation path (store/attestations/sha256/XX/REST/SHA256.json)"
    continue
  fi
  subject=${BASH_REMATCH[1]}${BASH_REMATCH[2]} name=${BASH_REMATCH[3]}
  git cat-file blob "$blob" > "$tmp/bundle"
  actual=$(sha256sum < "$tmp/bundle")
  actual=${actual%% *}
  if [ "$actual" != "$name" ]; then
    fail "$path: sha256 of the file is $actual, not its name"; continue
  fi
  if [ "$(jq -j "$JQ_CANONICAL canonical" "$tmp/bundle" 2>/dev/null | sha256sum)" \
       != "$actual  -" ]; then
    fail "$path: the bundle is not in canonical form"; continue
  fi
  [ -n "${have_object[$subject]:-}" ] || fail "$path: no object sha256:$subject in the store"
  check_bundle "$tmp/bundle" "$subject" "$path"
done

if git rev-parse -q --verify "$NOTES_REF" >/dev/null; then
  # 4. one canonical path per annotated object (KI424): git serves every fan-out form of an
  #    id concatenated (8a483e... and 8a/483e...), kistore reads one
  declare -A note_path_of=()
  while IFS= read -r -d '' entry; do
    meta=${entry%%$'\t'*} path=${entry#*$'\t'}
    id=${path//\//}
    if [ "${meta% *}" != "100644 blob" ] || ! [[ $path =~ ^([0-9a-f]{2}/)*[0-9a-f]+$ ]] \
        || [ ${#id} -ne 40 ]; then
      fail "$NOTES_REF:$path: no note path git and kistore read alike (a blob of mode" \
           "100644 named by the id in lowercase hex, under 2-digit fan-out directories)"
    elif [ -n "${note_path_of[$id]:-}" ]; then
      fail "$NOTES_REF:$path: $id is annotated at a second path (${note_path_of[$id]}):" \
           "git serves both, concatenated"
    else
      note_path_of[$id]=$path
    fi
  done < <(git ls-tree -r -z --full-tree "$NOTES_REF")
  while read -r note annotated; do
    subject=${object_of_blob[$annotated]:-}
    if [ -z "$subject" ]; then
      echo "warning: $NOTES_REF:$annotated: note on a git object that is no object of $rev" >&2
      continue
    fi
    n=0
    while IFS= read -r line || [ -n "$line" ]; do
      n=$((n + 1))
      [ -n "$line" ] || continue
      printf '%s' "$line" > "$tmp/bundle"
      check_bundle "$tmp/bundle" "$subject" "$NOTES_REF:$annotated line $n"
    done < <(git cat-file blob "$note")
  done < <(git notes --ref="$NOTES_REF" list)
fi

summary="$objects object(s), $names names file(s), $forward forward record(s), $groups group file(s), $bundles attestation(s): $sshsigs SSHSIG checked with ssh-keygen"
summary+=", $raw raw Ed25519 (not checkable with ssh-keygen; \`kistore verify\` checks them)"
summary+="; checked commit $commit"  # what REV named (HEAD moves; a commit does not)
if [ "$failures" -ne 0 ]; then
  echo "FAILED: $failures problem(s); $summary"
  exit 1
fi
if [ "$raw" -ne 0 ]; then
  echo "warning: $raw attestation(s) NOT checked here (raw Ed25519 signatures); only" \
       "\`kistore verify\` checks them, and the rules (schemas, references, names)" >&2
fi
echo "ok: $summary"
