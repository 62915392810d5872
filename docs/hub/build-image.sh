#!/bin/bash
# 用 repo2docker 从本仓库构建 Zero to JupyterHub 的单用户镜像：和 Binder 用的是同一个 environment.yml。
# 需要 Docker 和 pip install jupyter-repo2docker。用法：bash build-image.sh 镜像仓库前缀 [标签]
# 例如：bash build-image.sh registry.example.edu/nlp 2026-09 → registry.example.edu/nlp/nlp-from-scratch:2026-09
set -euo pipefail

PREFIX="${1:?用法：bash build-image.sh 镜像仓库前缀 [标签]}"
TAG="${2:-main}"
REPO="https://github.com/nlpbook/nlp-from-scratch"
BRANCH="main"
IMAGE="$PREFIX/nlp-from-scratch:$TAG"

# --target-repo-dir：仓库放在 /srv 下而不是家目录。Zero to JupyterHub 会把每位学生的持久存储挂到
#   /home/jovyan，盖住镜像里家目录的内容；postBuild 的 pip install -e . 指向 /srv 下的副本就不受影响。
# --appendix：再装上 nbgitpuller（environment.yml 里没有它，Binder 也不需要）。
jupyter-repo2docker --no-run --user-id 1000 --user-name jovyan \
  --ref "$BRANCH" \
  --target-repo-dir /srv/nlp-from-scratch \
  --appendix "RUN python -m pip install --no-cache-dir nbgitpuller" \
  --image-name "$IMAGE" \
  "$REPO"

docker push "$IMAGE"
echo "镜像已推送：$IMAGE（把 z2jh-config.yaml 里的 singleuser.image 改成它）"
