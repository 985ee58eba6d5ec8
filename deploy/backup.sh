#!/bin/sh
# A backup while play goes on: the store's replay log (docs/replay-log.md) written to
# DIR under the time it was taken, checked by `candidates audit`, then named latest.
# DIR is another disk, or a mount of another machine (NFS, sshfs); run by
# candidates-backup.service (docs/operations.md). The store is the one of
# $CANDIDATES_CONFIG (or $CANDIDATES_STORE).
set -eu
dir=${1:?usage: backup.sh DIR}
keep=${KEEP:-288}
mkdir -p "$dir"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
part="$dir/.hall-$stamp.msgpack.part"
candidates export --out "$part" --notes "backup taken $stamp" >/dev/null
# a log is kept only when its links, seals and records verify (exit 1 otherwise)
candidates audit "$part" >/dev/null
mv "$part" "$dir/hall-$stamp.msgpack"
ln -sfn "hall-$stamp.msgpack" "$dir/latest.msgpack"
# the last $keep logs (a day at one every five minutes)
ls -1 "$dir"/hall-*.msgpack | head -n "-$keep" | xargs -r rm -f
echo "$dir/hall-$stamp.msgpack"
