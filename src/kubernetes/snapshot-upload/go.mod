module kcluster.local/snapshot-upload

go 1.24
