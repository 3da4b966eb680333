#!/usr/bin/env bash
# Installs MariaDB from the distribution's packages when it is missing, starts it on
# 127.0.0.1:3306 (with the performance schema, where the tests across processes find the sessions
# of a killed process) and creates the user and database the tests use:
#   jdbc:mariadb://127.0.0.1:3306/statekit  user statekit  password statekit
set -euo pipefail

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

if ! command -v mariadbd >/dev/null 2>&1 && ! [ -x /usr/sbin/mariadbd ]; then
    echo "installing mariadb-server from the distribution's packages"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq mariadb-server mariadb-client >/dev/null
fi

up() { as_root mariadb -uroot -e 'select 1' >/dev/null 2>&1; }
# A server the package's scripts started has neither the performance schema nor these settings: start ours instead.
if up && [ "$(as_root mariadb -uroot -N -e 'select @@performance_schema')" != "1" ]; then
    as_root mariadb-admin -uroot shutdown
    for i in $(seq 1 30); do up || break; sleep 1; done
fi
if ! up; then
    as_root mkdir -p /run/mysqld
    as_root chown mysql:mysql /run/mysqld
    [ -d /var/lib/mysql/mysql ] || as_root mariadb-install-db --user=mysql --datadir=/var/lib/mysql >/dev/null
    # Started apart from the service manager, which a container may not have; on loopback only.
    as_root sh -c 'nohup /usr/sbin/mariadbd --user=mysql --bind-address=127.0.0.1 --port=3306 --max-connections=500 \
        --innodb-buffer-pool-size=512M --innodb-lock-wait-timeout=10 --performance-schema=ON >/var/log/statekit-mariadb.log 2>&1 &'
    for i in $(seq 1 60); do up && break; sleep 1; done
fi
up || { echo "MariaDB did not start; its log:"; as_root tail -20 /var/log/statekit-mariadb.log; exit 1; }
as_root mariadb -uroot -e "create database if not exists statekit character set utf8mb4 collate utf8mb4_bin;
    create user if not exists 'statekit'@'127.0.0.1' identified by 'statekit';
    create user if not exists 'statekit'@'localhost' identified by 'statekit';
    grant all on statekit.* to 'statekit'@'127.0.0.1'; grant all on statekit.* to 'statekit'@'localhost';
    grant select on performance_schema.* to 'statekit'@'127.0.0.1'; grant select on performance_schema.* to 'statekit'@'localhost';"
mariadb -h 127.0.0.1 -P 3306 -ustatekit -pstatekit statekit -Nse 'select version()'
