#!/usr/bin/env bash
# Verify a kistore store without kistore: only git, sha256sum, jq, base64 and ssh-keygen
# (and bash with coreutils: mktemp, wc, tr, fold, rm; and sed).
#
#   scripts/verify-store.sh [-f ALLOWED_SIGNERS] [-o FILE] [REV]     (run inside the store)
#
# REV (default HEAD) selects the objects, attestation files and trust file; notes are read
# from refs/notes/kistore as they are now (as `kistore verify` reads them). Checks:
#   0. every file under store/ is a regular file (mode 100644) at a path of the layout
#      (docs/design.md: objects, metadata, names, forward records, attestations, the trust
#      file and the ranking policy; nothing else);
#   1. every store/objects/sha256/XX/REST.json is a regular file whose sha256 is XX+REST;
#      every store/names/KIND/XX/NAME (names as paths) is a regular file at the shard XX of
#      sha256 of NAME, holding exactly `sha256:<64 hex>` and a newline, of a manifest whose
#      object's kind is KIND and whose metadata file's name is NAME; every
#      store/forward/sha256/XX/REST/RUN is a regular file listing, sorted, one a line, the
#      reference fields of the run RUN (whose object exists) that name XX+REST, no other;
#      and the other way: each manifest (object and metadata, of a kind and a valid name)
#      has its names file, each run's reference to a digest with no object a record;
#   2. every store/attestations/sha256/XX/REST/NAME.json: sha256 of the file is NAME, it is
#      canonical (jq -cjS gives back its bytes), and object XX+REST is in the store;
#   3. every attestation bundle (notes and files): one signature, payloadType
#      application/vnd.in-toto+json, a payload about the object it is attached to; when its
#      signature is SSHSIG, `ssh-keygen -Y verify` (namespace kernelindex-attestation) must
#      accept it over the DSSE PAE of the payload under the bundled key; and a rerun or
#      withdrawal by a key listed in ALLOWED_SIGNERS must verify there with principal
#      `rerun` or `maintainer` at the date its payload states (-Overify-time).
# ALLOWED_SIGNERS defaults to one built from store/trust/keys.json at REV with jq, byte for
# byte what `kistore trust export --allowed-signers` writes (-o FILE keeps a copy); each
# key's keyid must be its `ssh-keygen -l` fingerprint.
# Raw Ed25519 DSSE signatures (kistore's --key PRIVATE) are counted but cannot be checked
# with ssh-keygen. Exit 0 when all holds, 1 with one "FAIL:" line per problem, 2 on usage.
# docs/attestations.md ("Verify without kistore") says what only `kistore verify` checks.
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
for tool in git sha256sum jq base64 ssh-keygen sed; do
  command -v "$tool" >/dev/null || { echo "verify-store: $tool is not installed" >&2; exit 2; }
done
commit=$(git rev-parse --verify -q "$rev^{commit}") \
  || { echo "verify-store: $rev is not a commit of this repository" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0 objects=0 bundles=0 sshsigs=0 raw=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
hex64() { [[ $1 =~ ^[0-9a-f]{64}$ ]]; }

# -- 0. layout: every file under store/ is a regular file at a path of the layout ---------
kinds_alt='Workload|BenchmarkProtocol|ExecutionEnvironment|Implementation|BenchmarkRun'
layout_re="^store/(trust/keys\.json|policy/ranking\.json"
layout_re+="|(objects|metadata)/sha256/[0-9a-f]{2}/[0-9a-f]{62}\.json"
layout_re+="|attestations/sha256/[0-9a-f]{2}/[0-9a-f]{62}/[0-9a-f]{64}\.json"
layout_re+="|names/($kinds_alt)/[0-9a-f]{2}/[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?"
layout_re+="|forward/sha256/[0-9a-f]{2}/[0-9a-f]{62}/[0-9a-f]{64})$"
while IFS= read -r -d '' record; do
  meta=${record%%$'\t'*} path=${record#*$'\t'}
  read -r mode type _ <<<"$meta"
  shown=$(printf '%q' "$path")  # a name with control characters or a newline, escaped
  if [ "$mode" != 100644 ] || [ "$type" != blob ]; then
    fail "$shown: not a regular file of mode 100644 (mode $mode $type)"
  fi
  [[ $path =~ $layout_re ]] || fail "$shown: not a path of the store layout"
done < <(git ls-tree -r -z --full-tree "$commit" -- store)

# -- 1. objects -------------------------------------------------------------------------
declare -A object_of_blob=() have_object=()
while IFS= read -r -d '' record; do
  meta=${record%%$'\t'*} path=${record#*$'\t'}
  read -r mode type blob <<<"$meta"
  rest=${path#store/objects/sha256/}
  digest=${rest%%/*}${rest#*/}
  digest=${digest%.json}
  if [ "$mode" != 100644 ] && [ "$mode" != 100755 ] || [ "$type" != blob ]; then
    fail "$path: not a regular file (mode $mode $type)"; continue
  fi
  if ! [[ $rest =~ ^[0-9a-f]{2}/[0-9a-f]{62}\.json$ ]]; then
    fail "$path: not an object path (store/objects/sha256/XX/REST.json)"; continue
  fi
  actual=$(git cat-file blob "$blob" | sha256sum)
  actual=${actual%% *}
  [ "$actual" = "$digest" ] || fail "$path: sha256 of the file is $actual, not its name"
  object_of_blob[$blob]=$digest
  have_object[$digest]=1
  objects=$((objects + 1))
done < <(git ls-tree -r -z --full-tree "$commit" -- store/objects)

# -- 1b. names files: store/names/KIND/XX/NAME holds the digest of KIND/NAME's manifest ---
names=0
declare -A have_name=() have_record=()
while IFS= read -r -d '' record; do
  meta=${record%%$'\t'*} path=${record#*$'\t'}
  read -r mode type blob <<<"$meta"
  names=$((names + 1))
  if [ "$mode" != 100644 ] || [ "$type" != blob ]; then
    fail "$path: not a regular file of mode 100644 (mode $mode $type)"; continue
  fi
  rest=${path#store/names/}
  if ! [[ $rest =~ ^([A-Z][A-Za-z]*)/([0-9a-f]{2})/([a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?)$ ]]; then
    fail "$path: not a names path (store/names/KIND/XX/NAME)"; continue
  fi
  kind=${BASH_REMATCH[1]} shard=${BASH_REMATCH[2]} name=${BASH_REMATCH[3]}
  hashed=$(printf '%s' "$name" | sha256sum)
  [ "${hashed:0:2}" = "$shard" ] \
    || { fail "$path: shard $shard is not the first byte of sha256 of the name (${hashed:0:2})"
         continue; }
  held=$(git cat-file blob "$blob"; echo x)  # the x keeps a trailing newline
  held=${held%x}
  if ! [[ $held =~ ^sha256:([0-9a-f]{64})$'\n'$ ]]; then
    fail "$path: does not hold exactly sha256:<64 hex> and a newline"; continue
  fi
  hex=${BASH_REMATCH[1]}
  leaf=${hex:0:2}/${hex:2}.json
  if ! found=$(git cat-file blob "$commit:store/metadata/sha256/$leaf" 2>/dev/null \
               | jq -er 'select(type == "object") | .name | strings' 2>/dev/null); then
    fail "$path: sha256:$hex has no metadata file with a name (store/metadata/sha256/$leaf)"
    continue
  fi
  [ "$found" = "$name" ] || fail "$path: the metadata of sha256:$hex names $found, not $name"
  found=$(git cat-file blob "$commit:store/objects/sha256/$leaf" 2>/dev/null \
          | jq -r 'select(type == "object") | .kind | strings' 2>/dev/null) || found=""
  [ "$found" = "$kind" ] \
    || fail "$path: the object sha256:$hex is of kind ${found:-(none)}, not $kind"
  have_name[$kind/$name]=1
done < <(git ls-tree -r -z --full-tree "$commit" -- store/names)

# -- 1c. forward records: store/forward/sha256/XX/REST/RUN lists RUN's fields naming XX+REST
forward=0
fields_re=$'^((environmentDigest\n)?(implementationDigest\n)?(protocolDigest\n)?(workloadDigest\n)?)$'
while IFS= read -r -d '' record; do
  meta=${record%%$'\t'*} path=${record#*$'\t'}
  read -r mode type blob <<<"$meta"
  forward=$((forward + 1))
  if [ "$mode" != 100644 ] || [ "$type" != blob ]; then
    fail "$path: not a regular file of mode 100644 (mode $mode $type)"; continue
  fi
  rest=${path#store/forward/sha256/}
  if ! [[ $rest =~ ^([0-9a-f]{2})/([0-9a-f]{62})/([0-9a-f]{64})$ ]]; then
    fail "$path: not a forward record path (store/forward/sha256/XX/REST/RUN)"; continue
  fi
  target=${BASH_REMATCH[1]}${BASH_REMATCH[2]} run=${BASH_REMATCH[3]}
  held=$(git cat-file blob "$blob"; echo x)  # the x keeps a trailing newline
  held=${held%x}
  if [ -z "$held" ] || ! [[ $held =~ $fields_re ]]; then
    fail "$path: does not hold reference fields, sorted, one a line ending in a newline"
    continue
  fi
  if [ -z "${have_object[$run]:-}" ]; then
    fail "$path: the run sha256:$run has no object"; continue
  fi
  naming=$(git cat-file blob "$commit:store/objects/sha256/${run:0:2}/${run:2}.json" \
           | jq -j --arg d "sha256:$target" 'select(type == "object" and .kind == "BenchmarkRun")
               | .spec | select(type == "object") | to_entries
               | map(select(.value == $d) | .key) | sort | map(. + "\n") | add // ""' \
             2>/dev/null; echo x) || naming=x
  naming=${naming%x}
  [ "$naming" = "$held" ] \
    || fail "$path: the run sha256:$run names sha256:$target in other fields than listed"
  for field in $held; do have_record[$target/$run/$field]=1; done
done < <(git ls-tree -r -z --full-tree "$commit" -- store/forward)

# -- 1d. the other way: each manifest has its names file, each dangling reference a record --
# Every object and metadata file through one `git cat-file --batch` and one jq: each file is
# preceded by a line holding its tag ("objects HEX" or "metadata HEX") as a JSON string. A
# stored file is one line of canonical JSON; one that is not is left out here (the sha256
# check above, or `kistore verify`, reports it).
kinds_re='^(Workload|BenchmarkProtocol|ExecutionEnvironment|Implementation|BenchmarkRun)$'
wanted=$(git ls-tree -r --full-tree "$commit" -- store/objects store/metadata \
  | sed -nE 's#^100(644|755) blob ([0-9a-f]{40,64})\tstore/(objects|metadata)/sha256/([0-9a-f]{2})/([0-9a-f]{62})\.json$#\2 "\3 \4\5"#p' \
  | git cat-file --batch='%(rest)' \
  | jq -nrR --arg kinds "$kinds_re" '
      def field($f): if type == "object" then .[$f] else null end;
      def name_ok: type == "string" and test("^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$");
      reduce (foreach inputs as $line ({tag: null};
                if ($line | test("^\"(objects|metadata) [0-9a-f]{64}\"$")) then
                  {tag: ($line | fromjson)}
                elif .tag != null then {tag: null, pair: [.tag, ($line | try fromjson catch null)]}
                else {tag: null} end;
                .pair // empty)) as [$tag, $doc] ({};
        ($tag | split(" ")) as [$what, $hex]
        | if $what == "metadata" then .[$hex].name = ($doc | field("name"))
          else .[$hex].kind = ($doc | field("kind")) | .[$hex].object = true
               | .[$hex].refs = [$doc | select(field("kind") == "BenchmarkRun") | field("spec")
                                 | objects | to_entries[]
                                 | select(.key | test("^(workload|protocol|environment|implementation)Digest$"))
                                 | select(.value | type == "string" and test("^sha256:[0-9a-f]{64}$"))
                                 | [.key, .value[7:]]]
          end)
      | . as $all
      | to_entries[]
      | (select(.value.object and (.value.kind | type == "string" and test($kinds))
                and (.value.name | name_ok))
         | "name \(.value.kind)/\(.value.name) \(.key)"),
        (.key as $run | .value.refs[]? | select($all[.[1]].object | not)
         | "record \(.[1])/\($run)/\(.[0])")')
while read -r what key hex; do
  case $what in
    name) [ -n "${have_name[$key]:-}" ] \
            || fail "sha256:$hex ($key) has no names file under store/names/${key%%/*}/" ;;
    record) IFS=/ read -r target run field <<<"$key"
            [ -n "${have_record[$key]:-}" ] \
              || fail "the run sha256:$run names sha256:$target ($field), which is not in the store, and no forward record lists it" ;;
  esac
done <<<"$wanted"

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
  # A role claim by a trusted key, at the date the payload states (kistore: KI302).
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
  if ! said=$(ssh-keygen -Y verify -f "$allowed" -I "$role" -n "$NS" -s "$tmp/sig" \
                -Overify-time="$when" < "$tmp/pae" 2>&1); then
    fail "$where: $type by $keyid: allowed_signers does not accept it as $role at $when (${said//$'\n'/; })"
  fi
}

while IFS= read -r -d '' record; do
  meta=${record%%$'\t'*} path=${record#*$'\t'}
  read -r mode type blob <<<"$meta"
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
  if [ "$(jq -cjS . "$tmp/bundle" 2>/dev/null | sha256sum)" != "$actual  -" ]; then
    fail "$path: the bundle is not in canonical form"; continue
  fi
  [ -n "${have_object[$subject]:-}" ] || fail "$path: no object sha256:$subject in the store"
  check_bundle "$tmp/bundle" "$subject" "$path"
done < <(git ls-tree -r -z --full-tree "$commit" -- store/attestations)

if git rev-parse -q --verify "$NOTES_REF" >/dev/null; then
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

summary="$objects object(s), $names names file(s), $forward forward record(s), $bundles attestation(s): $sshsigs SSHSIG checked with ssh-keygen"
summary+=", $raw raw Ed25519 (not checkable with ssh-keygen; \`kistore verify\` checks them)"
if [ "$failures" -ne 0 ]; then
  echo "FAILED: $failures problem(s); $summary"
  exit 1
fi
if [ "$raw" -ne 0 ]; then
  echo "warning: $raw attestation(s) NOT checked here (raw Ed25519 signatures); only" \
       "\`kistore verify\` checks them, and the rules (schemas, references, names)" >&2
fi
echo "ok: $summary"
