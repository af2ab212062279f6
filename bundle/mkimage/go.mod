module kcluster.local/mkimage

go 1.22
