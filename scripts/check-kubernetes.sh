#!/usr/bin/env bash
# Kubernetes check (CI), offline and in about a second:
#   1. every manifest in docker/kubernetes/ validates against the Kubernetes 1.37 schemas bundled with
#      kubernetes-validate (PyPI, scripts/python-requirements.txt), strictly: unknown fields fail too;
#   2. the manifests agree with each other and with Larder: the balancer lists one server per
#      StatefulSet replica, under the headless Service's name; the probes ask /livez and /readyz;
#      every container asks for CPU and memory; each replica has its own volume at the database's
#      directory.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
command -v kubernetes-validate >/dev/null ||
    { echo "check-kubernetes: kubernetes-validate missing (scripts/install-deps.sh --test)"; exit 1; }

echo "== kubernetes-validate --strict"
kubernetes-validate --strict --quiet docker/kubernetes/*.yaml

echo "== manifests agree"
python3 - docker/kubernetes/*.yaml <<'PY'
import re
import sys

import yaml

documents = [doc for path in sys.argv[1:] for doc in yaml.safe_load_all(open(path)) if doc]
by_kind = {}
for doc in documents:
    by_kind.setdefault(doc["kind"], []).append(doc)
problems = []

(statefulset,) = by_kind["StatefulSet"]
headless = [s for s in by_kind["Service"] if s["spec"].get("clusterIP") == "None"]
if [s["metadata"]["name"] for s in headless] != [statefulset["spec"]["serviceName"]]:
    problems.append("the StatefulSet's serviceName is not the one headless Service")
replicas = statefulset["spec"]["replicas"]
name, service = statefulset["metadata"]["name"], statefulset["spec"]["serviceName"]
(configmap,) = by_kind["ConfigMap"]
template = configmap["data"]["default.conf.template"]
servers = re.findall(r"^\s*server (\S+) resolve;", template, re.M)
expected = [f"{name}-{i}.{service}.${{POD_NAMESPACE}}.svc.cluster.local:8080" for i in range(replicas)]
if servers != expected:
    problems.append(f"balancer servers {servers} are not the {replicas} replicas {expected}")
if "hash $arg_url consistent;" not in template:
    problems.append("the balancer does not hash the url parameter consistently")

(container,) = statefulset["spec"]["template"]["spec"]["containers"]
probes = {kind: container.get(kind, {}).get("httpGet", {}).get("path")
          for kind in ("livenessProbe", "readinessProbe")}
if probes != {"livenessProbe": "/livez", "readinessProbe": "/readyz"}:
    problems.append(f"probes ask {probes}, not /livez and /readyz")
env = {e["name"]: e.get("value") for e in container.get("env", [])}
mounts = {m["name"]: m["mountPath"] for m in container.get("volumeMounts", [])}
claims = [c["metadata"]["name"] for c in statefulset["spec"].get("volumeClaimTemplates", [])]
database_directory = (env.get("LARDER_DB") or "").rsplit("/", 1)[0]
if not any(mounts.get(claim) == database_directory for claim in claims):
    problems.append(f"no volume claim is mounted at the database's directory {database_directory!r}")

for doc in by_kind["StatefulSet"] + by_kind["Deployment"]:
    for c in doc["spec"]["template"]["spec"]["containers"]:
        requests = c.get("resources", {}).get("requests", {})
        if not {"cpu", "memory"} <= requests.keys():
            problems.append(f"{doc['metadata']['name']}/{c['name']} requests no cpu or memory")

for problem in problems:
    print(f"check-kubernetes: {problem}", file=sys.stderr)
sys.exit(1 if problems else 0)
PY
echo "check-kubernetes: passed in $(($(date +%s) - started)) s"
