module kcluster.local/relay

go 1.22
