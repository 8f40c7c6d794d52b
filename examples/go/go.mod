module libxlat.example/l1l2

go 1.19
