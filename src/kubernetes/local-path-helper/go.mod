module kcluster.local/local-path-helper

go 1.22
