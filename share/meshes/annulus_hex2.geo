// Quarter annulus 0.5 < r < 1 extruded to z in [0, 0.5], curved (second-order) hexahedra: gmsh -3 -order 2 annulus_hex2.geo
Point(1) = {0, 0, 0}; Point(2) = {0.5, 0, 0}; Point(3) = {1, 0, 0}; Point(4) = {0, 1, 0}; Point(5) = {0, 0.5, 0};
Line(1) = {2, 3}; Circle(2) = {3, 1, 4}; Line(3) = {4, 5}; Circle(4) = {5, 1, 2};
Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};
Transfinite Curve{1, 3} = 3; Transfinite Curve{2, 4} = 4; Transfinite Surface{1}; Recombine Surface{1};
out[] = Extrude {0, 0, 0.5} { Surface{1}; Layers{2}; Recombine; };
Physical Volume("domain") = {out[1]};
Physical Surface("wall") = {1, out[0], out[2], out[3], out[4], out[5]};
Mesh.MshFileVersion = 2.2;
