"""deploy/kubernetes/ against the image a bundle's Dockerfile builds: the Deployment's container
port is the image's MCP_PORT, it runs as the image's user id, its readiness probe asks /ready with a
Host the allowlist holds, its MCP_ALLOWED_HOSTS names the Service, and the Service selects the
pods and targets the container's port.

    python check.py DEPLOY_DIR DOCKERFILE      # exits 1 naming every disagreement
"""
import glob
import os
import re
import sys

import yaml


def main():
    deploy_dir, dockerfile = sys.argv[1], open(sys.argv[2]).read()
    documents = []
    for path in sorted(glob.glob(os.path.join(deploy_dir, "*.yaml"))):
        documents.extend(doc for doc in yaml.safe_load_all(open(path)) if doc)
    kinds = {doc["kind"]: doc for doc in documents}
    deployment, service = kinds["Deployment"], kinds["Service"]
    port = int(re.search(r"MCP_PORT=(\d+)", dockerfile).group(1))
    uid = int(re.search(r"--uid (\d+)", dockerfile).group(1))
    pod = deployment["spec"]["template"]
    container = pod["spec"]["containers"][0]
    problems = []

    def expect(condition, message):
        if not condition:
            problems.append(message)

    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    expect(port in ports.values(), "no container port %d (the image's MCP_PORT)" % port)
    expect(pod["spec"]["securityContext"].get("runAsUser") == uid, "runAsUser is not %d" % uid)
    env = {item["name"]: item.get("value") for item in container.get("env", [])}
    allowed = env.get("MCP_ALLOWED_HOSTS", "").split(",")
    probe = container["readinessProbe"]["httpGet"]
    expect(probe["path"] == "/ready", "the readiness probe does not ask /ready")
    expect(ports.get(probe["port"], probe["port"]) == port, "the readiness probe asks another port")
    hosts = [h["value"] for h in probe.get("httpHeaders", []) if h["name"].lower() == "host"]
    expect(hosts and hosts[0] in allowed, "the readiness probe's Host is not in MCP_ALLOWED_HOSTS")
    name = service["metadata"]["name"]
    expect(name in allowed, "MCP_ALLOWED_HOSTS does not name the Service %s" % name)
    labels = pod["metadata"]["labels"]
    selector = service["spec"]["selector"]
    expect(all(labels.get(k) == v for k, v in selector.items()), "the Service selects no pod")
    target = service["spec"]["ports"][0]["targetPort"]
    expect(ports.get(target, target) == port, "the Service targets another port")
    expect(deployment["spec"]["replicas"] == 1, "an environment is one instance (its state is in memory)")
    for problem in problems:
        print("deploy/kubernetes: " + problem)
    sys.exit(1 if problems else 0)


main()
