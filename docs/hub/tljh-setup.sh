#!/bin/bash
# 在一台全新的 Ubuntu 服务器上用 The Littlest JupyterHub（TLJH）开一门《从零开始的 NLP》课。
# 以有 sudo 权限的用户运行：  bash tljh-setup.sh 管理员用户名
# 做三件事：安装 TLJH；把课程环境（与 Binder 相同的 environment.yml）装进 TLJH 的用户环境；
# 把 nlpbook 包本身装进去（notebook 要 import 它）。课程内容由学生点 nbgitpuller 链接拉取。
set -euo pipefail

ADMIN="${1:?用法：bash tljh-setup.sh 管理员用户名}"
REPO="https://github.com/nlpbook/nlp-from-scratch"
BRANCH="main"
USER_ENV="/opt/tljh/user"          # TLJH 的用户环境：所有学生的 JupyterLab 和内核都在这里

# 1. 安装 TLJH（官方的一行安装命令；会自带 nbgitpuller）
curl -L https://tljh.jupyter.org/bootstrap.py | sudo -E python3 - --admin "$ADMIN"

# 2. 课程环境：用仓库里的 environment.yml 更新用户环境（conda-forge 的包 + pip 段）
curl -fsSL "$REPO/raw/$BRANCH/environment.yml" -o /tmp/nlpbook-environment.yml
sudo -E "$USER_ENV/bin/conda" env update --prefix "$USER_ENV" --file /tmp/nlpbook-environment.yml

# 3. 课程的辅助包 nlpbook（依赖已在第 2 步装好，所以 --no-deps）
sudo -E "$USER_ENV/bin/pip" install --no-deps "nlpbook @ git+$REPO@$BRANCH"

# 4. 默认打开 JupyterLab，并给每位学生设一个资源上限（按服务器大小调整）
sudo tljh-config set user_environment.default_app jupyterlab
sudo tljh-config set limits.memory 2G
sudo tljh-config set limits.cpu 1
# 闲置 1 小时的学生服务器由 TLJH 自带的 idle culler 停掉；关掉的标签页的内核闲置 20 分钟后由 jupyter-server 停掉
sudo tljh-config set services.cull.timeout 3600
sudo mkdir -p "$USER_ENV/etc/jupyter"
curl -fsSL "$REPO/raw/$BRANCH/docs/hub/jupyter_server_config.json" | sudo tee "$USER_ENV/etc/jupyter/jupyter_server_config.json" >/dev/null
sudo tljh-config reload

# 5. 检查：在用户环境里跑一遍环境检查（中文字体、控件前端、数据文件……）
cd /tmp && "$USER_ENV/bin/python" -m nlpbook.doctor --path /tmp
