module kcluster.local/apiproxy

go 1.22
