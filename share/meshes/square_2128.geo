// Unit square, unstructured triangles (Gmsh): gmsh -2 -format msh22 square_2128.geo -o square_2128.msh
lc = 0.034;
Point(1) = {0, 0, 0, lc}; Point(2) = {1, 0, 0, lc}; Point(3) = {1, 1, 0, lc}; Point(4) = {0, 1, 0, lc};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Physical Curve("boundary", 1) = {1, 2, 3, 4};
Physical Surface("domain", 2) = {1};
