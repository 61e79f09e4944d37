#!/bin/sh
# tfc cluster --k8s: the manifests of a 1 ps + 2 worker cluster with a trainer are well-formed
# YAML (parsed by PyYAML when python3 has it; a structural check otherwise) holding, per job, a
# headless Service and a StatefulSet (the ps) or an Indexed Job (the workers, restartPolicy
# OnFailure); each pod's script, run by sh as the pod tfc-worker-1 would, execs the trainer
# with its placeholders replaced and its quoting intact, or `tfc server` with the task of its
# hostname. Then the spec mistakes Kubernetes cannot take.
# Usage: tfc_cluster_k8s.sh TFC_TOOL CLUSTER_PROBE WORKDIR
name=tfc_cluster_k8s
. "$(dirname "$0")/tfc_cluster_lib.sh"

spec="ps=h1:2222;worker=h2:2223,h3:2224"
"$tool" cluster --k8s "$spec" --name demo --image "registry.example/tfc:1" --max-restarts 4 -- \
  train {job} {task} "--target={target}" "it's \$HOME \"q\" \\ \`x\`" > "$work/m.yaml" 2> "$work/m.err"
rc=$?
[ $rc -eq 0 ] || fail "exit code $rc: $(cat "$work/m.err")"
[ -s "$work/m.err" ] && fail "stderr: $(cat "$work/m.err")"
k8s_spec="ps=demo-ps-0.demo-ps:2222;worker=demo-worker-0.demo-worker:2223,demo-worker-1.demo-worker:2224"

# A fake `tfc` and `train` on PATH print the words they get, one per line.
mkdir -p "$work/bin"
printf '#!/bin/sh\nfor a in "$0" "$@"; do printf "%%s\\n" "$a"; done\nprintf "TF_CONFIG=%%s\\n" "$TF_CONFIG"\n' > "$work/bin/tfc"
cp "$work/bin/tfc" "$work/bin/train"
chmod +x "$work/bin/tfc" "$work/bin/train"

if python3 -c "import yaml" 2>/dev/null; then
  python3 - "$work" "$k8s_spec" > "$work/check.out" 2>&1 <<'PY' || fail "manifests: $(cat "$work/check.out")"
import os, subprocess, sys, yaml
work, k8s_spec = sys.argv[1], sys.argv[2]
docs = [d for d in yaml.safe_load_all(open(work + "/m.yaml")) if d is not None]
got = [(d["kind"], d["metadata"]["name"]) for d in docs]
want = [("Service", "demo-ps"), ("StatefulSet", "demo-ps"), ("Service", "demo-worker"), ("Job", "demo-worker")]
assert got == want, got
svc_ps, sts, svc_w, job = docs
for svc, ports in ((svc_ps, [2222]), (svc_w, [2223, 2224])):
    assert svc["apiVersion"] == "v1" and svc["spec"]["clusterIP"] == "None", svc
    assert svc["spec"]["publishNotReadyAddresses"] is True, svc
    assert [p["port"] for p in svc["spec"]["ports"]] == ports, svc
assert svc_ps["spec"]["selector"] == sts["spec"]["template"]["metadata"]["labels"] == sts["spec"]["selector"]["matchLabels"]
assert svc_w["spec"]["selector"] == job["spec"]["template"]["metadata"]["labels"]
assert svc_ps["spec"]["selector"] != svc_w["spec"]["selector"]
assert sts["apiVersion"] == "apps/v1" and sts["spec"]["serviceName"] == "demo-ps" and sts["spec"]["replicas"] == 1, sts
assert sts["spec"]["template"]["spec"]["restartPolicy"] == "Always", sts
assert job["apiVersion"] == "batch/v1", job
js = job["spec"]
assert (js["completionMode"], js["completions"], js["parallelism"], js["backoffLimit"]) == ("Indexed", 2, 2, 4), js
assert js["template"]["spec"]["restartPolicy"] == "OnFailure" and js["template"]["spec"]["subdomain"] == "demo-worker", js
def run(doc, hostname):
    c = doc["spec"]["template"]["spec"]["containers"][0]
    assert c["image"] == "registry.example/tfc:1", c
    assert c["command"] == ["sh", "-c"] and len(c["args"]) == 1, c
    env = dict(os.environ, HOSTNAME=hostname, PATH=work + "/bin:" + os.environ["PATH"])
    return subprocess.run(["sh", "-c", c["args"][0]], env=env, capture_output=True, text=True)
r = run(job, "demo-worker-1")
assert r.returncode == 0, r
tf_config = ('TF_CONFIG={"cluster": {"ps": ["demo-ps-0.demo-ps:2222"], "worker": ["demo-worker-0.demo-worker:2223", '
             '"demo-worker-1.demo-worker:2224"]}, "task": {"type": "worker", "index": 1}}')
want = [work + "/bin/train", "worker", "1", "--target=grpc://demo-worker-1.demo-worker:2224", "it's $HOME \"q\" \\ `x`",
        tf_config]
assert r.stdout.splitlines() == want, r.stdout
r = run(sts, "demo-ps-0")
want = [work + "/bin/tfc", "server", "--cluster", k8s_spec, "--job", "ps", "--task", "0"]
assert r.returncode == 0 and r.stdout.splitlines()[:-1] == want, r
r = run(job, "demo-worker-7")
assert r.returncode == 2 and "demo-worker-7: no task 7 in job worker" in r.stderr, r
print("manifests ok")
PY
  grep -qx "manifests ok" "$work/check.out" || fail "manifests: $(cat "$work/check.out")"
else
  echo "python3 has no yaml module: a structural check only"
  [ "$(grep -c '^---$' "$work/m.yaml")" -eq 4 ] || fail "want 4 documents: $(cat "$work/m.yaml")"
  [ "$(grep -c '^kind: Service$' "$work/m.yaml")" -eq 2 ] || fail "want 2 Services"
  [ "$(grep -c '^kind: StatefulSet$' "$work/m.yaml")" -eq 1 ] || fail "want 1 StatefulSet"
  [ "$(grep -c '^kind: Job$' "$work/m.yaml")" -eq 1 ] || fail "want 1 Job"
  grep -qx '      restartPolicy: OnFailure' "$work/m.yaml" || fail "no restartPolicy OnFailure"
  grep -qx '  completionMode: Indexed' "$work/m.yaml" || fail "no Indexed Job"
  grep -qF "TFC_CLUSTER='$k8s_spec'" "$work/m.yaml" || fail "no rewritten spec"
  grep -q '	' "$work/m.yaml" && fail "a tab in the YAML"
  # The Job's script (the block scalar of its 4th document), run as pod demo-worker-1 would.
  awk '/^---$/ { doc++ } doc == 4 && /^        ports:$/ { on = 0 } doc == 4 && on { print substr($0, 11) }
       doc == 4 && /^        - \|$/ { on = 1 }' "$work/m.yaml" > "$work/job.sh"
  HOSTNAME=demo-worker-1 PATH="$work/bin:$PATH" sh "$work/job.sh" > "$work/job.out" 2>&1 || fail "job script: $(cat "$work/job.out")"
  printf '%s\n' "$work/bin/train" worker 1 --target=grpc://demo-worker-1.demo-worker:2224 "it's \$HOME \"q\" \\ \`x\`" \
    'TF_CONFIG={"cluster": {"ps": ["demo-ps-0.demo-ps:2222"], "worker": ["demo-worker-0.demo-worker:2223", "demo-worker-1.demo-worker:2224"]}, "task": {"type": "worker", "index": 1}}' \
    > "$work/job.want"
  cmp -s "$work/job.out" "$work/job.want" || fail "job script printed:
$(cat "$work/job.out")
want:
$(cat "$work/job.want")"
fi

# Mistakes: exit code 2 and the reason.
expect() {
  _what=$1 _msg=$2
  shift 3
  "$tool" cluster "$@" > "$work/e.out" 2> "$work/e.err"
  _got=$?
  [ $_got -eq 2 ] || fail "$_what: exit code $_got, want 2: $(cat "$work/e.err")"
  grep -qF -- "$_msg" "$work/e.err" || fail "$_what: stderr lacks '$_msg': $(cat "$work/e.err")"
  [ -s "$work/e.out" ] && fail "$_what: wrote to stdout: $(cat "$work/e.out")"
}
expect port0 "tfc cluster: INVALID_ARGUMENT: --k8s: job 'worker' task 1: port 0 in 'h:0': pods need the port fixed in the spec" -- --k8s "worker=h:1,h:0"
expect bad_name "tfc cluster: INVALID_ARGUMENT: --name 'My_Name' is not a DNS label" -- --k8s "$spec" --name My_Name
expect same_name "tfc cluster: INVALID_ARGUMENT: --k8s: jobs 'PS' and 'ps' both become 'tfc-ps'" -- --k8s "ps=h:1;PS=h:2"
expect long_name "is longer than 50 characters: a shorter --name" -- --k8s "a_very_long_job_name_for_a_kubernetes_object_name_x=h:1"
expect control "tfc cluster: INVALID_ARGUMENT: --k8s: trainer word 2 holds a control character" -- --k8s "$spec" -- train "a
b"
expect k8s_host "--tasks, --host, --backoff-ms, --max-backoff-ms, --healthy-ms and --grace-ms go with --cluster" -- --k8s "$spec" --host h1
expect name_alone "--name and --image go with --k8s" -- --cluster "$spec" --image x
expect bad_spec "tfc cluster: INVALID_ARGUMENT: --k8s: TFC_NewServerDef: cluster entry 'ps' is not job=host:port" -- --k8s "ps"
finish
